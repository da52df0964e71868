// One head's passes after the projections: scores, scaling, the mask, the softmax and the
// weighted values. Self-, cross-, grouped-query, multi-head and cached attention share them;
// only shapes and labels differ, and those come from the trace.
// Entry fields: see ../stage-table.js.

import { formatBillions, formatCell, formatCount, formatPlain, formatSci } from '../format.js';
import { argmaxQuestion, divisorQuestion, maskedWeightQuestion, rowSumQuestion } from '../quiz-questions.js';
import { entry } from './entry.js';
import { cell, dot } from './highlight.js';
import { ofHead } from './numpy-paths.js';
import { filledDot, logitsSymbol, maskedInput, n, f, shortList } from './tex.js';
import { biasAt, scaledAt } from './terms.js';

// The rules M combines, by the names the engine gives them in the masked stage's terms (mask.cpp:
// M is their conjunction). Each gives its name in the title, its condition on key j for query i
// and what it means; the stage's title, cases and text are those of every rule the engine names.
const MASK_RULES = {
  causal: {
    name: 'causal',
    when: () => 'j \\le i',
    text: () =>
      'A token may look only at itself and at earlier tokens: M holds \u2212\u221e at every future position ' +
      '(j > i), so after the softmax its weight is exactly 0. Because of this mask one forward pass trains ' +
      'every position of a sequence at once.',
  },
  prefix: {
    name: 'prefix-LM',
    when: () => '(j \\le i \\text{ or } j < P)',
    text: (c) =>
      `The first P = ${c.prefix} tokens (a prompt, say) all see each other, both ways; every later token ` +
      'sees the whole prefix, itself and the tokens before it, as a decoder would. The loss is usually taken ' +
      'only after the prefix (the prefix LM of Raffel et al. 2020, \u00a73.2.1; UniLM, Dong et al. 2019).',
  },
  window: {
    name: 'sliding-window',
    when: (terms) =>
      terms.includes('sink-tokens') ? '(j < \\text{sinks} \\text{ or } j > i - (W - \\text{sinks}))' : 'j > i - W',
    text: (c) =>
      `The window keeps no key more than W \u2212 1 = ${c.window - 1} tokens back (W = ${c.window}), so each ` +
      'row of weights has at most W nonzero entries, whatever the length of the sequence. Sources count W ' +
      'differently (Mistral\u2019s code keeps W tokens with the current one, as here; Longformer\u2019s w is ' +
      'two-sided). Stacked, L windowed layers reach about L\u00b7W tokens back (Jiang et al. 2023, \u00a72).',
  },
  'sink-tokens': {
    name: 'sink-token',
    when: () => null, // the window's condition carries it
    text: (c) =>
      `The first ${c.sinkTokens} token${c.sinkTokens === 1 ? '' : 's'} stay seen by every later query, however ` +
      `far the window has moved on; the window keeps the W \u2212 ${c.sinkTokens} = ${c.window - c.sinkTokens} ` +
      `latest keys beside them, so each row still has at most W = ${c.window} nonzero weights. A trained model ` +
      'piles weight on its first tokens whatever they say, and a plain window that drops them derails it; ' +
      'keeping them, the attention sinks, lets it run on far past its window (StreamingLLM, Xiao et al. 2023, ' +
      'which keeps 4).',
  },
  documents: {
    name: 'packed-documents',
    when: () => 'j \\text{ in } i\\text{\u2019s document}',
    text: (c) =>
      `${c.documents.length} sequences are packed into one row of T = ${c.seqLen} tokens (lengths ` +
      `${c.documents.join(', ')}): no token sees a key of another document, so no document reads another; ` +
      'with positions restarted per document (or relative ones, RoPE and ALiBi) one pass trains each as if ' +
      'it ran alone. Many pipelines pack under a plain causal mask instead, with separator tokens; Llama 3 ' +
      'uses this block-diagonal mask.',
  },
  padding: {
    name: 'padding',
    when: () => 'j < \\text{valid}',
    text: (c, terms) =>
      `Key positions from ${c.validKeys} on are padding (sequences in a batch are padded to one ` +
      'length): M holds \u2212\u221e in their columns, so no query reads them. The pad positions\u2019 own ' +
      'rows are still computed, and their outputs discarded (no loss reads them). ' +
      (terms.includes('causal') || terms.includes('prefix')
        ? 'Under a causal mask, pads at the end are after every real token already: the padding hides them ' +
          'only from the pad rows.'
        : 'Without a causal mask the padding is the whole mask: every query sees every real key, before and ' +
          'after it, and no pad (an encoder such as BERT pads its batches so).'),
  },
};

const scaled = scaledAt;
const oneSided = (stage) => biasAt(stage) === 'one-sided';

// The accent of the rows the scores were taken of, by the engine's operands: RoPE's turned rows
// (q_rot, k_rot) \hat, QK-norm's normalised ones (q_norm, k_norm) \check, else none.
const ACCENTS = { q_rot: ['\\hat', '\u0302'], q_norm: ['\\check', '\u030c'] };
const accentOf = (stage) => ACCENTS[stage.operands[0].name] ?? null;
const accented = (stage, letter) => (accentOf(stage) ? `${accentOf(stage)[0]}{${letter}}` : letter);

const capital = (s) => s[0].toUpperCase() + s.slice(1);

// MLA's scores: q·kᵀ plus the RoPE parts' product (the engine's term "decoupled-rope"), the same
// as the query taken into the latent against the cached latents.
function latentScores(c, stage) {
  const n = c.numHeads > 1 ? '_n' : '';
  const rope = stage?.terms.includes('decoupled-rope') ? ` + Q^{R}${n}\\,(K^{R})^{\\top}` : '';
  return `S${n} = Q${n}\\,K${n}^{\\top}${rope} = Q^{C}${n}\\,(c^{KV})^{\\top}${rope}`;
}

function latentScoresText(c, stage) {
  const rope = stage.terms.includes('decoupled-rope')
    ? ` The second term carries position: this head\u2019s q_rope against the key part k_rope every head shares ` +
      `(d_r = ${c.dRope} columns each), so S adds two dot products, d_k + d_r = ${c.dK + c.dRope} columns in all.`
    : ' With d_r = 0 there is no RoPE part: MLA is then multi-head attention whose keys and values come up from ' +
      'the latent.';
  return (
    'Entry (i, j) is query i against key j, as in every head.' +
    rope +
    ' A decoder never forms K: it scores q_absorbed, the query taken down into the latent, against the cached ' +
    `c_kv rows. Both routes are operands here; the engine finds them apart by at most ` +
    `${formatSci(c.absorbedDifference)}, rounding.`
  );
}

// The soft cap as this head's numbers show it: its largest |S̃| (the cap's input, operand 0), what
// the engine capped that logit to, and how far the engine found the weights moved by the cap.
function cappedText(c, stage) {
  const input = stage.operands[0].values;
  let at = 0;
  for (let k = 1; k < input.length; k += 1) if (Math.abs(input[k]) > Math.abs(input[at])) at = k;
  const change = c.softcapChange?.[stage.head];
  const moved =
    change === undefined
      ? ''
      : ` Without the cap this head\u2019s weights would differ by up to ${formatCell(change)} (the engine ` +
        'ran its softmax on the uncapped logits to compare).';
  return (
    `Soft-capping passes every logit through \u03ba\u00b7tanh(\u00b7 / \u03ba), here with \u03ba = ` +
    `${c.softcap}: near 0 it changes almost nothing (tanh x \u2248 x), but no logit passes ` +
    '\u00b1\u03ba however large q\u00b7k grows, so no single key takes a whole row\u2019s weight by an outsized ' +
    `score, and training cannot push the logits up without bound. This head\u2019s largest |S\u0303| is ` +
    `${formatCell(Math.abs(input[at]))}, capped to ${formatCell(Math.abs(stage.values[at]))}.${moved} Gemma 2 ` +
    'caps its attention logits at \u03ba = 50 and its final logits at 30 (Gemma Team 2024, \u00a72); Grok-1 ' +
    'caps attention at 30; Gemma 3 dropped the cap for QK-norm, which bounds the logits by normalising q and k.'
  );
}

// The sink as this head's numbers show it: its ζ (operand 1), how many rows give it more than half
// their weight, and its largest share.
function sinkText(stage) {
  const shares = Array.from(stage.values);
  const zeta = stage.operands[1].values[0];
  const most = shares.filter((s) => s > 0.5).length;
  return (
    `This head\u2019s softmax has one more key, the sink, of logit \u03b6 = ${zeta} and no value: what it takes ` +
    `is missing from the row\u2019s weights, so the head\u2019s output is a weighted average of the values scaled ` +
    `down by 1 \u2212 sink. Here the sink takes more than half of ${most} of the ${shares.length} rows, at most ` +
    `${formatCell(Math.max(...shares))}. A head with nothing useful to read can so attend to nothing instead of ` +
    'spreading its weight over every key. gpt-oss learns one \u03b6 per head (OpenAI 2025); trained models ' +
    'without one make a token into a sink, often the first (Xiao et al. 2023, StreamingLLM).'
  );
}

// "a", "a and b", "a, b and c".
const joined = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

// The mask the engine applied at this masked stage: its terms' names in the title, their conditions
// joined in the cases (on one line: more rows would make KaTeX draw the brace as an SVG with a style
// attribute, which the strict CSP blocks), their sentences in the text. No stage (the stage listed
// while its checkbox is off): the causal mask it would be.
function maskOf(stage) {
  const terms = stage?.terms ?? ['causal'];
  const rules = terms.map((term) => {
    const rule = MASK_RULES[term];
    if (!rule) throw new Error(`masked: the engine applied "${term}", which no mask rule here renders`);
    return rule;
  });
  return {
    title: `${capital(joined(rules.map((r) => r.name)))} mask`,
    // A rule that only reshapes another's condition (sink tokens reshape the window's) writes none.
    cases: `0 & ${rules
      .map((r) => r.when(terms))
      .filter(Boolean)
      .join(' \\text{ and } ')} \\\\ -\\infty & \\text{otherwise}`,
    // Several rules: the key sentence says how they combine, then each rule's own account.
    text: (config) =>
      [
        ...(rules.length > 1
          ? [
              `M combines the ${joined(rules.map((r) => r.name))} rules: query i sees key j only where ` +
                'every one of them allows it, and M holds \u2212\u221e everywhere else.',
            ]
          : []),
        ...rules.map((r) => r.text(config, terms)),
      ].join(' '),
  };
}

const STORED =
  'Stored whole (standard attention) it needs memory growing with T\u00b2; FlashAttention (its own chapter) ' +
  'computes the same scores a tile at a time and never stores them all.';

const SCALE_REASON =
  'Why \u00f7\u221ad_k: if the components of q and k are independent, with mean 0 and variance 1, q\u00b7k ' +
  'has variance d_k, which saturates the softmax (where gradients vanish) as d_k grows; \u00f7\u221ad_k ' +
  'brings it back to 1.';
const UNSCALED =
  'Ablation: the scores are not divided by \u221ad_k. With components of q and k that are independent, with ' +
  'mean 0 and variance 1, q\u00b7k would have variance d_k, and a large d_k would saturate the softmax (one ' +
  'weight near 1, the others near 0), where its gradients vanish.';

// Each component of q and k is a sum of d_model products x·w: variance weightScale² · d_model when X
// is randn (drawn, no encoding added). Null when X is given, built or shifted by PE.
function componentVariance(c) {
  if (c.seed === null || c.weightScale === null || c.positionalEncoding) return null;
  return { text: `${c.weightScale}\u00b2 \u00b7 ${c.dModel}`, value: c.weightScale ** 2 * c.dModel };
}

// Why the premise fails, and what to try, when the logits' variance is far from 1 (`low` below);
// divided: whether the engine divided by √d_k.
function premise(c, low, divided) {
  if (c.kind === 'designed')
    return low
      ? ' These heads are built, not drawn: this one\u2019s scores are equal on purpose, so its rows are uniform.'
      : ' These heads are built, not drawn: their scores are set large where a head should look, on purpose, ' +
          'so that the softmax saturates.';
  if (c.kind === 'model')
    return (
      ' This model\u2019s weights are not drawn at a scale the page sets: every matrix was initialised as ' +
      'randn \u00b7 1/\u221a(its rows), so R\u2080 is small (variance 1/vocab + 1/context, W_E\u2019s and ' +
      'W_P\u2019s rows) and, at initialisation (the untrained checkpoint), the logits spread far less than 1; ' +
      'trained, a head ' +
      'sharpens or flattens them on purpose.'
    );
  const q = componentVariance(c);
  // MLA's k passes through two drawn matrices (W_DKV, then W_UK): its variance is q's times ws²·d_c.
  const latent = c.kind === 'mla' && q;
  const k = latent && {
    text: `${q.text} \u00b7 ${c.weightScale}\u00b2 \u00b7 ${c.dLatent}`,
    value: q.value * c.weightScale ** 2 * c.dLatent,
  };
  const why = latent
    ? ` X is randn and the weights randn \u00b7 ${c.weightScale}: each component of q (and of the RoPE parts) ` +
      `has variance about ${q.text} = ${formatPlain(q.value)}, and of k, made from the latent through a second ` +
      `drawn matrix, about ${k.text} = ${formatPlain(k.value)}; not 1.`
    : q
      ? ` X is randn and the weights randn \u00b7 ${c.weightScale}: each component of q and k has ` +
        `variance about ${q.text} = ${formatPlain(q.value)}, not 1.`
      : ' The components of q and k here do not have variance 1.';
  if (low)
    return (
      `${why} Set the weight scale to 1 (or raise d_model) to see sharper rows` +
      `${divided ? '' : ', then raise d_k to watch them saturate'}.`
    );
  return (
    `${why} The logits spread so wide that the softmax saturates even so; initialisations that scale the ` +
    'weights by about 1/\u221ad_model keep the components\u2019 variance near 1.'
  );
}

// The premise checked on this head's own numbers: the engine's var(S) and var(S̃) (config.scoreVariance),
// the logits' variance set against 1.
function measured(c, stage) {
  // A model's heads are per layer (a stage's step is its layer); elsewhere one entry per head.
  const v = c.scoreVariance?.find((s) => s.head === (stage.head ?? 0) && (s.layer ?? stage.step) === stage.step);
  if (!v) return '';
  const over =
    c.kind === 'kv-cache'
      ? `this head\u2019s ${v.entries} scores, every decode step\u2019s row`
      : `the ${v.entries} scores its queries see`;
  const lead = ` Over ${over}: var(S) = ${formatPlain(v.scores)}, var(S\u0303) = ${formatPlain(v.scaled)}.`;
  const logits = v.scaled; // S̃, what the softmax reads (S itself in the ablation)
  if (logits >= 0.5 && logits <= 2) return `${lead} That is within a factor of 2 of 1: the argument holds here.`;
  const low = logits < 0.5;
  return `${lead} Far ${low ? 'below' : 'above'} 1: the premise fails here.${premise(c, low, scaled(stage))}`;
}

// GPT-3's score count, and where the often-quoted smaller figure comes from: 2048² read as 4 M.
function atGpt3(m) {
  const t = m.contextLength;
  const millions = Math.round((t * t) / 1e6);
  return (
    ` GPT-3 (T = ${t}, ${m.numHeads} heads, ${m.numLayers} layers) computes ` +
    `${formatBillions(m.scoreValues)} a forward pass (${t}\u00b2 \u00b7 ${m.numHeads} \u00b7 ${m.numLayers}); the ` +
    `often-quoted ~37 billion reads ${t}\u00b2 = ${formatCount(t * t)} as ${millions} M: ` +
    `${formatCount(millions * 1e6)} \u00b7 ${m.numHeads} \u00b7 ${m.numLayers} = ` +
    `${formatBillions(millions * 1e6 * m.numHeads * m.numLayers)}.`
  );
}

// Press et al.'s slopes for h heads: 2^(−8(n+1)/h) when h is a power of two; else the slopes of the
// power of two p below h, then every other slope of twice that many (their get_slopes).
function slopeRule(h) {
  const p = 2 ** Math.floor(Math.log2(h)); // a number written into the TeX, not a symbol of it
  if (p === h) return `m_n = 2^{-8(n+1)/${h}}`;
  // Past the power of two, head n takes slope 2(n − p) of twice as many heads: every other one.
  return `m_n = 2^{-8(n+1)/${p}}\\ (n < ${p}), \\quad m_n = 2^{-8(2(n - ${p}) + 1)/${2 * p}}\\ (n \\ge ${p})`;
}

export const HEAD_STAGES = [
  entry({
    id: 'scores',
    group: 'head',
    title: 'Scores',
    result: 'scores',
    // Under RoPE the engine scores the turned rows (its operands q_rot and k_rot): Q̂ and K̂; under
    // QK-norm alone the normalised ones: Q̌ and Ǩ.
    terms: ['decoupled-rope'],
    figure: (c, stage) => [
      { operand: 0 },
      { glyph: '@' },
      { operand: 1, transpose: true, label: `K${accentOf(stage)?.[1] ?? ''}\u1d40` },
      ...(stage?.terms.includes('decoupled-rope')
        ? [{ glyph: '+' }, { operand: 2 }, { glyph: '@' }, { operand: 3, transpose: true, label: 'k_rope\u1d40' }]
        : []),
    ],
    formula: (c, stage) =>
      c.kind === 'mla' ? latentScores(c, stage) : `S = ${accented(stage, 'Q')}\\,${accented(stage, 'K')}^{\\top}`,
    // A decode step's keys are the cache's rows: t + 1 of them, or W once a window's ring is full
    // (the engine names the axis W then).
    explanation: ({ config: c, stage, models }) => {
      if (c.kind === 'mla') return latentScoresText(c, stage);
      if (c.kind === 'kv-cache')
        return stage.axes[1] === 'W'
          ? 'The new token\u2019s query meets every cached key, its own included: one row of W ' +
              `= ${stage.shape[1]} scores, for the window\u2019s cache keeps only the last W keys. No causal mask ` +
              'is needed: the cache holds only the past.'
          : 'The new token\u2019s query meets every cached key, its own included: one row of t+1 = ' +
              `${stage.shape[1]} scores. No causal mask is needed: the cache holds only the past.`;
      const size =
        c.kind === 'cross'
          ? 'a T_q × T_kv matrix: one row per target token, one column per source token.'
          : `a T × T matrix. ${STORED}`;
      const gpt3 = models.find((m) => m.id === 'gpt3-175b');
      return `Entry (i, j) is the dot product of query i with key j: how well they match. This is ${size}${
        c.kind === 'cross' || !gpt3 ? '' : atGpt3(gpt3)
      }`;
    },
    explain: {
      symbolic: (i, j, c, stage) =>
        stage?.terms.includes('decoupled-rope')
          ? `S_{${i},${j}} = \\sum_a Q_{${i},a}\\,K_{${j},a} + \\sum_c Q^{R}_{${i},c}\\,K^{R}_{${j},c}`
          : accentOf(stage)
            ? `S_{${i},${j}} = \\sum_a ${accented(stage, 'Q')}_{${i},a}\\,${accented(stage, 'K')}_{${j},a}`
            : `S_{${i},${j}} = q_{${i}} \\cdot k_{${j}} = \\sum_a Q_{${i},a}\\,K_{${j},a}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `S_{${r},${c}}`),
    },
    highlight: dot,
    operands: { Q: 'Q', K: 'K' },
    firstView: true,
    // MLA's absorbed route: the query taken into the latent against the cached c_kv (operands 4, 5
    // with the RoPE parts, else 2, 3), plus the same RoPE term.
    view: {
      sumFigure: {
        items: (c, stage) => {
          const at = stage.operands.findIndex((o) => o.name === 'q_absorbed');
          if (at < 0) return null;
          const rope =
            at === 4
              ? [{ glyph: '+' }, { operand: 2 }, { glyph: '@' }, { operand: 3, transpose: true, label: 'k_rope\u1d40' }]
              : [];
          return [{ operand: at }, { glyph: '@' }, { operand: at + 1, transpose: true, label: 'c_kv\u1d40' }, ...rope];
        },
        result: '= scores',
        label: 'Show the absorbed route: the query taken into the latent against the cached c_kv (no K formed)',
      },
    },
    numpy: ofHead('scores'),
  }),
  entry({
    id: 'scaled',
    group: 'head',
    title: 'Scaled scores',
    result: 'scaled',
    terms: ['scale'],
    figure: (c, stage) => [
      { operand: 0 },
      { glyph: scaled(stage) ? `\u00f7 \u221a${c.dK + (c.dRope ?? 0)}` : '\u00f7 1' },
    ],
    // Whether the engine divided is its term "scale" (none in the ablation); MLA's q and k are d_r wider.
    formula: (c, stage) =>
      scaled(stage)
        ? `\\tilde S = \\frac{S}{\\sqrt{${c.dRope ? 'd_k + d_r' : 'd_k'}}}`
        : '\\tilde S = S \\quad (\\text{no} \\div \\sqrt{d_k})',
    explanation: ({ config: c, stage }) =>
      (scaled(stage) ? SCALE_REASON : UNSCALED) +
      (c.dRope ? ` In MLA each score sums d_k + d_r = ${c.dK + c.dRope} products, so it divides by their root.` : '') +
      measured(c, stage),
    explain: {
      symbolic: (i, j, c, stage) =>
        scaled(stage)
          ? `\\tilde S_{${i},${j}} = \\frac{q_{${i}} \\cdot k_{${j}}}{\\sqrt{d_k}}`
          : `\\tilde S_{${i},${j}} = q_{${i}} \\cdot k_{${j}} \\quad (\\text{no} \\div \\sqrt{d_k})`,
      filled: (e, { i: r, j: c, config, stage }) => {
        const lead = filledDot(e, `q_{${r}} \\cdot k_{${c}}`);
        if (!scaled(stage)) return `${lead}, \\quad \\tilde S_{${r},${c}} = ${n(e.value)}`;
        return (
          `${lead}, \\quad ${n(e.sum)} \\div \\sqrt{${config.dK + (config.dRope ?? 0)}} ` +
          `= ${n(e.sum)} \\div ${n(e.divisor)} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c) }),
    quiz: [divisorQuestion],
    numpy: ofHead('scaled'),
  }),
  entry({
    id: 'capped',
    group: 'head',
    title: 'Soft-capped logits',
    optional: { flag: 'softcap', after: 'scaled' },
    result: 'capped',
    figure: (c) => [{ glyph: `${c.softcap}\u00b7tanh(` }, { operand: 0 }, { glyph: `\u00f7 ${c.softcap})` }],
    formula: () => '\\bar S = \\kappa \\tanh\\!\\left(\\frac{\\tilde S}{\\kappa}\\right)',
    explanation: ({ config: c, stage }) => cappedText(c, stage),
    explain: {
      symbolic: (i, j) => `\\bar S_{${i},${j}} = \\kappa \\tanh\\!\\left(\\tilde S_{${i},${j}} / \\kappa\\right)`,
      filled: (e, { i: r, j: c }) =>
        `\\bar S_{${r},${c}} = ${n(e.cap)} \\cdot \\tanh(${n(e.input)} / ${n(e.cap)}) = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c) }),
    operands: { '\u03ba': '\u03ba' },
    numpy: ofHead('capped'),
  }),
  entry({
    id: 'biased',
    group: 'head',
    title: 'ALiBi distance bias',
    optional: { flag: 'alibi', after: 'scaled' },
    result: 'S\u0303 + B',
    terms: ['one-sided', 'symmetric'],
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    // The engine's term says which distance B used: one-sided (no key ahead of its query) or symmetric.
    formula: (c, stage) =>
      `\\tilde S + B, \\quad B_{ij} = -m_n ${oneSided(stage) ? '(i - j)' : '|i - j|'}, \\quad ` + slopeRule(c.numHeads),
    explanation: ({ config: c, stage }) =>
      `ALiBi puts no position into X, q or k. Instead each head adds a penalty that grows with the distance ` +
      `from query to key: this head\u2019s slope is m = ${formatCell(c.alibi[stage.head])}, so a key ` +
      `\u0394 tokens back loses ${formatCell(c.alibi[stage.head])}\u00b7\u0394 before the softmax. A head with a ` +
      'small slope can look far back, one with a large slope favours near keys; that shows in the weights when ' +
      'the scores are small beside B (a small weight scale). A constant added to a whole row would change no weight. ' +
      (oneSided(stage)
        ? c.kind !== 'kv-cache'
          ? 'Above the diagonal B is positive, but the mask hides those keys.'
          : 'A decode step\u2019s keys are all behind its query, so i \u2212 j is never negative.'
        : 'Press et al. (2022) define ALiBi for causal models; the symmetric |i \u2212 j| here is a later extension ' +
          'for encoders.'),
    explain: {
      symbolic: (i, j) => `(\\tilde S + B)_{${i},${j}} = \\tilde S_{${i},${j}} + B_{${i},${j}}`,
      filled: (e, { i: r, j: c }) =>
        `(\\tilde S + B)_{${r},${c}} = ${n(e.addends[0])} + ${f(e.addends[1])} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
    operands: { B: 'bias B' },
    numpy: ofHead('biased'),
  }),
  entry({
    id: 'masked',
    group: 'head',
    title: (c, stage) => maskOf(stage).title,
    optional: { flag: 'causal', after: 'scaled' },
    result: 'L',
    terms: Object.keys(MASK_RULES),
    figure: () => [{ operand: 0 }, { glyph: '+' }, { operand: 1 }],
    formula: (c, stage) =>
      `L = ${maskedInput(stage)} + M, \\quad M_{ij} = \\begin{cases} ${maskOf(stage).cases} \\end{cases}`,
    explanation: ({ config: c, stage }) =>
      `${maskOf(stage).text(c)} Code often adds \u22121e9 where the formula says \u2212\u221e: both give ` +
      `exactly 0 after the softmax in float64, and \u22121e9 keeps a fully masked row from becoming NaN.`,
    explain: {
      symbolic: (i, j, c, stage) =>
        maskedInput(stage) === '\\tilde S + B'
          ? `L_{${i},${j}} = \\tilde S_{${i},${j}} + B_{${i},${j}} + M_{${i},${j}}`
          : `L_{${i},${j}} = ${maskedInput(stage)}_{${i},${j}} + M_{${i},${j}}`,
      filled: (e, { i: r, j: c }) =>
        e.masked
          ? `M_{${r},${c}} = -\\infty, \\quad L_{${r},${c}} = ${n(e.input)} + (-\\infty) = -\\infty`
          : `M_{${r},${c}} = 0, \\quad L_{${r},${c}} = ${n(e.input)} + 0 = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: cell(r, c), 1: cell(r, c) }),
    operands: { M: 'mask M' },
    numpy: ofHead('masked'),
  }),
  entry({
    id: 'weights',
    group: 'head',
    title: 'Attention weights',
    result: 'weights',
    figure: () => [{ glyph: 'softmax' }, { operand: 0 }],
    // With sinks (the config's ζ per head) the sum and the max take the head's ζ too.
    formula: (c, stage) => {
      const [i, L] = [c.kind === 'kv-cache' ? 't' : 'i', logitsSymbol(stage)]; // a decode step's one row is token t
      const sink = c.sinks ? `e^{\\zeta_n - \\mu_${i}} + ` : '';
      return (
        `A_{${i}j} = \\frac{e^{${L}_{${i}j} - \\mu_${i}}}{${sink}\\sum_{j'} e^{${L}_{${i}j'} - \\mu_${i}}}, ` +
        `\\quad \\mu_${i} = \\max${c.sinks ? `(\\zeta_n, \\max_{j'} ${L}_{${i}j'})` : `_{j'} ${L}_{${i}j'}`}`
      );
    },
    explanation: ({ config: c, stage }) =>
      `A softmax along each row turns the logits into weights: non-negative${
        logitsSymbol(stage) === 'L' ? ', exactly 0 where masked' : ''
      }, and ${
        c.sinks
          ? 'each row sums to 1 less the share its head\u2019s sink takes (the next stage): the sink is one more ' +
            'key in the sum, of logit \u03b6, that holds no value (the engine\u2019s row sums are printed beside it)'
          : 'each row sums to 1 (the matrix is row-stochastic; the engine\u2019s row sums are printed beside it)'
      }. Subtracting the row maximum first keeps the exponentials from overflowing and does not change the result.`,
    explain: {
      symbolic: (i, j, c, stage) =>
        `A_{${i},${j}} = \\frac{e^{${logitsSymbol(stage)}_{${i},${j}} - ` +
        `\\mu_{${i}}}}{\\sum_{j'} e^{${logitsSymbol(stage)}_{${i},j'} - \\mu_{${i}}}}`,
      filled: (e, { col, i: r, j: c }) => {
        const s = e.softmax;
        if (e.masked) return `e^{-\\infty} = 0, \\quad A_{${r},${c}} = \\dfrac{0}{${n(s.expSum)}} = ${n(e.value)}`;
        // With a sink its term e^(ζ − μ) comes first in the sum, as the engine adds it.
        const terms = [...(s.sink === null ? [] : [s.sink]), ...Array.from(s.exps)];
        const denominator = shortList(terms.map((x) => n(x)));
        return (
          `\\mu_{${r}} = ${n(s.max)}, \\quad A_{${r},${c}} = \\dfrac{e^{${n(s.logits[col])} - ` +
          `${f(s.max)}}}{${denominator}} = \\dfrac{${n(s.exps[col])}}{${n(s.expSum)}} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r, col: c }) => ({ 0: { rows: [r], cells: [[r, c]] } }),
    view: { arcs: true, overview: true, rowTotals: true, maskedZero: true },
    nonNegative: true,
    quiz: [maskedWeightQuestion, rowSumQuestion, argmaxQuestion],
    numpy: ofHead('weights'),
  }),
  entry({
    id: 'sink',
    group: 'head',
    title: 'The sink\u2019s share',
    optional: { flag: 'sinks', after: 'weights' },
    result: 'sink',
    figure: (c, stage) => [
      { glyph: 'sink share of' },
      { operand: 0 },
      { glyph: `with \u03b6 = ${stage.operands[1].values[0]}` },
    ],
    formula: (c, stage) => {
      const [i, L] = [c.kind === 'kv-cache' ? 't' : 'i', logitsSymbol(stage)];
      return (
        `\\text{sink}_${i} = \\frac{e^{\\zeta_n - \\mu_${i}}}{e^{\\zeta_n - \\mu_${i}} + \\sum_{j'} ` +
        `e^{${L}_{${i}j'} - \\mu_${i}}} = 1 - \\sum_j A_{${i}j}`
      );
    },
    explanation: ({ stage }) => sinkText(stage),
    explain: {
      symbolic: (i, j, c, stage) =>
        `\\text{sink}_{${i}} = \\frac{e^{\\zeta_n - \\mu_{${i}}}}` +
        `{e^{\\zeta_n - \\mu_{${i}}} + \\sum_{j'} e^{${logitsSymbol(stage)}_{${i},j'} - \\mu_{${i}}}}`,
      filled: (e, { i: r }) => {
        const s = e.softmax;
        return (
          `\\mu_{${r}} = ${n(s.max)}, \\quad \\text{sink}_{${r}} = \\dfrac{e^{${n(s.zeta)} - ${f(s.max)}}}` +
          `{${n(s.expSum)}} = \\dfrac{${n(s.sink)}}{${n(s.expSum)}} = ${n(e.value)}`
        );
      },
    },
    highlight: ({ row: r }) => ({ 0: { rows: [r], cells: [] } }),
    operands: { '\u03b6': '\u03b6' },
    nonNegative: true,
    numpy: ofHead('sink'),
  }),
  entry({
    id: 'latent_head',
    group: 'head',
    title: 'Output in the latent',
    result: 'latent_head',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => (c.numHeads > 1 ? 'H^{C}_n = A_n\\,c^{KV}' : 'H^{C} = A\\,c^{KV}'),
    explanation: ({ config: c }) =>
      'The weights average the cached latents themselves: one row of d_c = ' +
      `${c.dLatent} numbers per token. W_UV then takes it up to the head\u2019s d_v = ${c.dV} columns, which ` +
      'gives A\u00b7V again, since V = c_kv\u00b7W_UV. The engine finds the two routes apart by at most ' +
      `${formatSci(c.absorbedDifference)}: rounding.`,
    explain: {
      symbolic: (i, j) => `H^{C}_{${i},${j}} = \\sum_s A_{${i},s}\\,c^{KV}_{s,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `H^{C}_{${r},${c}}`),
    },
    highlight: dot,
    numpy: ofHead('latent_head'),
  }),
  entry({
    id: 'head',
    group: 'head',
    title: 'Weighted values',
    result: 'head',
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => {
      const h = c.numHeads > 1 ? '_n' : '';
      return c.kind === 'mla' ? `H${h} = H^{C}${h}\\,W^{UV}${h} = A${h}\\,V${h}` : `H${h} = A\\,V`;
    },
    explanation: ({ config: c }) =>
      c.kind === 'mla'
        ? 'The latent output goes up through W_UV to the head\u2019s d_v columns. Because V = c_kv\u00b7W_UV, this ' +
          'is A\u00b7V, the weighted average of the value rows, reached without forming V: a decoder keeps ' +
          'only c_kv and k_rope per token.'
        : `Each output row is a weighted average of the value rows, with that ` +
          `token\u2019s row of weights: token t takes in content from the ${
            c.kind === 'cross' ? 'source tokens' : 'tokens'
          } it attends to.${c.numHeads > 1 ? ' This is one head\u2019s output.' : ''}`,
    explain: {
      symbolic: (i, j, c) =>
        c.kind === 'mla'
          ? `H_{${i},${j}} = \\sum_p H^{C}_{${i},p}\\,W^{UV}_{p,${j}}`
          : `H_{${i},${j}} = \\sum_s A_{${i},s}\\,V_{s,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `H_{${r},${c}}`),
    },
    highlight: dot,
    operands: { V: 'V', W_UV: 'W_UV' },
    numpy: ofHead('head'),
  }),
];
