// What the engine applied at a stage, read from the stage's terms (engine.stages() declares which
// a stage may report): the ÷√d_k scaling, the mask's rules, ALiBi's distance, RoPE.

const MASK_TERMS = ['causal', 'prefix', 'window', 'sink-tokens', 'documents', 'padding'];

/** Whether the pass divided by √d_k (no "scale" in the ÷√d_k ablation). */
export const scaledAt = (stage) => stage.terms.includes('scale');

/** The mask's rules in force, in the engine's order (M is their conjunction). */
export const maskRulesAt = (stage) => stage.terms.filter((t) => MASK_TERMS.includes(t));

/** ALiBi's distance at the stage: 'one-sided', 'symmetric', or null without ALiBi. */
export const biasAt = (stage) => stage.terms.find((t) => t === 'one-sided' || t === 'symmetric') ?? null;

/** Whether the pass turned Q and K by RoPE (a stage with no operands to show it). */
export const turnedAt = (stage) => stage.terms.includes('rope');
