// The projections: Q, K and V of every head (K and V once per K/V head), and in a decode step
// the new token's key and value and the caches they join.
// Entry fields: see ../stage-table.js.

import { cacheRowsQuestion } from '../quiz-questions.js';
import { ROPE_TABLES } from './captions.js';
import { entry } from './entry.js';
import { formatCell, formatPlain } from '../format.js';
import { col, dot, row } from './highlight.js';
import { ofHead, ofKvHead } from './numpy-paths.js';
import { f, filledDot, grouped, n, perHead, sourceOf, weightOf } from './tex.js';

// MLA's keys and values: projected up from the latent each token caches (latent.js).
const upFromLatent = (c, letter) =>
  `${letter === 'K' ? 'Keys' : 'Values'} in MLA are not projected from X: each head takes the latent c_kv ` +
  `(d_c = ${c.dLatent} numbers per token, the one row a decoder caches) up to its d_${letter.toLowerCase()} = ` +
  `${letter === 'K' ? c.dK : c.dV} columns with its own W_U${letter}.`;

function projection(id, letter, title, what) {
  const tex = (c, stage) => {
    if (c.kind === 'kv-cache') return `q_t = x_t\\,${weightOf(c, letter)}`;
    if (c.kind === 'mla' && letter !== 'Q') return `${perHead(c, letter)} = c^{KV}\\,${weightOf(c, `U${letter}`)}`;
    if (letter !== 'Q' && grouped(c)) return `${letter}_g = ${sourceOf(stage)}\\,W^{${letter}}_g`;
    return `${perHead(c, letter)} = ${sourceOf(stage)}\\,${weightOf(c, letter)}`;
  };
  const shared = (c, stage) => {
    if (letter === 'Q' || !grouped(c))
      return c.numHeads > 1 ? ` Each head has its own W_${letter}, so it works in its own subspace.` : '';
    const g = stage.kvHead;
    const size = c.numHeads / c.numKvHeads;
    return ` This is K/V head ${g}: computed once and read by query heads ${g * size} to ${g * size + size - 1}.`;
  };
  return {
    id,
    group: 'head',
    sharedByGroup: letter !== 'Q',
    title,
    result: letter,
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: tex,
    explanation: ({ config: c, stage }) =>
      c.kind === 'kv-cache'
        ? `Token ${stage.step}\u2019s query: what the new token looks for among all the tokens so ` +
          `far. Only this one row is computed; earlier tokens\u2019 queries are never needed again.`
        : c.kind === 'mla' && letter !== 'Q'
          ? upFromLatent(c, letter)
          : `${what(c)}${shared(c, stage)}`,
    explain: {
      // A decode step's one row is token t's: q_t and x_t, indexed by its position.
      symbolic: (i, j, c, stage) => {
        if (c.kind === 'kv-cache') return `q_{${i},${j}} = \\sum_a x_{${i},a}\\,W^{${letter}}_{a,${j}}`;
        const weight = c.kind === 'mla' && letter !== 'Q' ? `U${letter}` : letter; // MLA: up from c_kv
        return `${letter}_{${i},${j}} = \\sum_a {${sourceOf(stage)}}_{${i},a}\\,W^{${weight}}_{a,${j}}`;
      },
      filled: (e, { i: r, j: c, config }) => filledDot(e, `${config.kind === 'kv-cache' ? 'q' : letter}_{${r},${c}}`),
    },
    highlight: dot,
  };
}

// "1" when every gain is 1, else the gains listed.
const gainsText = (gains) => (gains.every((g) => g === 1) ? 'all 1' : gains.map(formatPlain).join(', '));

// What QK-norm bounded in this run, from the engine's checks: the bound, and per head the largest
// |S̃| with the norm and without it (none in a decode step, whose checks hold the cache's figures).
function boundText(c, head) {
  if (c.qkNormBound === undefined) return '';
  const largest = c.qkNormLargest[head];
  const without = c.qkNormWithout[head];
  return (
    ` With the keys normalised too, no logit can pass d_k\u00b7max_a |\u03bb^Q_a\u00b7\u03bb^K_a|, divided as ` +
    `the scores are: ${formatCell(c.qkNormBound)} here. This head\u2019s largest |S\u0303| is ` +
    `${formatCell(largest)}; the same queries and keys unnormalised would give ${formatCell(without)}.`
  );
}

// QK-norm: a projection's rows RMS-normalised, times a gain per column (the engine's qk_norm.hpp).
function normalised(id, letter, title) {
  const gains = (c) => (letter === 'Q' ? c.qNormGain : c.kNormGain);
  return entry({
    id,
    group: 'head',
    sharedByGroup: letter === 'K',
    optional: { flag: 'qkNorm', after: letter.toLowerCase() },
    title,
    result: `${letter}_norm`,
    figure: () => [{ glyph: 'rmsnorm(' }, { operand: 0 }, { glyph: ') \u2299' }, { operand: 1 }],
    formula: () =>
      `\\check{${letter}}_{t,a} = \\frac{${letter}_{t,a}}{\\operatorname{rms}(${letter}_t)}\\,` +
      `\\lambda^{${letter}}_a, ` +
      `\\quad \\operatorname{rms}(${letter}_t) = \\sqrt{\\operatorname{mean}_a ${letter}_{t,a}^2 + \\varepsilon}`,
    explanation: ({ config: c, stage }) =>
      letter === 'Q'
        ? `QK-norm divides each row of this head\u2019s Q by its root mean square over its d_k = ${c.dK} columns ` +
          `(\u03b5 = 10\u207b\u2076 keeps it finite), then multiplies column a by the gain \u03bb^Q_a ` +
          `(${gainsText(gains(c))}): every row then has mean square just under 1, however large W_Q has grown, ` +
          `so the logits cannot grow without bound as training scales the weights up.${boundText(c, stage.head)} ` +
          'Qwen3 and Gemma 3 normalise so, per head and before RoPE; OLMo 2 normalises the queries and keys ' +
          'over the whole width d_model, every head at once.'
        : `The keys get the same norm with their own gains \u03bb^K (${gainsText(gains(c))}): each row of K ` +
          'divided by its root mean square over d_k columns. A key is normalised once, before RoPE turns it ' +
          '(and, when decoding, before it enters the cache), and every query head of its group reads it.',
    explain: {
      symbolic: (i, j) =>
        `\\check{${letter}}_{${i},${j}} = \\frac{${letter}_{${i},${j}}}{\\sqrt{\\operatorname{mean}_a ` +
        `${letter}_{${i},a}^2 + \\varepsilon}}\\,\\lambda^{${letter}}_{${j}}`,
      filled: (e, { i: r, j: c }) =>
        `\\check{${letter}}_{${r},${c}} = \\frac{${n(e.input)}}{\\sqrt{${n(e.rms.meanSquare)} + ${n(e.rms.eps)}}} ` +
        `\\cdot ${f(e.rms.gain)} = ${n(e.value)}`,
    },
    highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) }),
    operands: { [letter]: letter, [`\u03bb_${letter}`]: `\u03bb^${letter}` },
    numpy: (structure, at) => (letter === 'K' ? ofKvHead : ofHead)(id)(structure, at) ?? ofHead(id)(structure, at),
  });
}

// RoPE: a projection's rows turned by position, pair of columns by pair (the engine's rope.hpp).
function turned(id, letter, title) {
  const row0 = (stage) => Array.from(stage.operands[5].values.slice(0, 2), (v) => String(v));
  // Under QK-norm the engine turns the normalised rows (its operand q_norm or k_norm): Q̌, Ǩ.
  const input = (stage) => (stage?.operands[0].name.endsWith('_norm') ? `\\check{${letter}}` : letter);
  return entry({
    id,
    group: 'head',
    sharedByGroup: letter === 'K',
    optional: { flag: 'rope', after: letter.toLowerCase() },
    title,
    result: `${letter}_rot`,
    figure: () => [{ operand: 0 }, { glyph: 'turned by' }, { operand: 3 }, { glyph: ',' }, { operand: 4 }],
    formula: (c, stage) =>
      `\\begin{pmatrix} \\hat{${letter}}_{t,a} \\\\ \\hat{${letter}}_{t,b} \\end{pmatrix} = ` +
      `\\begin{pmatrix} \\cos\\varphi_{t,c} & -\\sin\\varphi_{t,c} \\\\ \\sin\\varphi_{t,c} & \\cos\\varphi_{t,c} ` +
      `\\end{pmatrix} \\begin{pmatrix} ${input(stage)}_{t,a} \\\\ ${input(stage)}_{t,b} \\end{pmatrix}, \\quad ` +
      `\\varphi_{t,c} = (t_0 + t)\\,\\theta_c, \\ \\theta_c = \\text{base}^{-2c/d_{\\text{rot}}}`,
    explanation: ({ stage }) =>
      `Rotary position embedding: row t of ${
        stage.operands[0].name.endsWith('_norm') ? `${letter}\u030c (${letter} after QK-norm)` : letter
      } is turned pair of columns by pair (pair 0 is columns ` +
      `${row0(stage).join(' and ')}; the pairs operand lists them all), pair c by the angle ` +
      '(t\u2080 + t)\u00b7\u03b8_c, t\u2080 being the position of row 0 (the offset, for a sequence that ' +
      'continues another) and d_rot the columns turned, fast for the first pairs and slow for the last. The scores ' +
      'read the turned rows, so a query and a key meet at an angle that depends on their positions only through ' +
      'how far apart they are.',
    explain: {
      symbolic: (i, j, c, stage) =>
        `\\hat{${letter}}_{${i},${j}} = ${input(stage)}_{${i},a}\\,\\rho_1 + ` +
        `${input(stage)}_{${i},b}\\,\\rho_2, \\quad ` +
        '(\\rho_1, \\rho_2) = ' +
        '(\\cos\\varphi, -\\sin\\varphi) \\text{ in the first column of a pair, } ' +
        '(\\sin\\varphi, \\cos\\varphi) \\text{ in its second}',
      filled: (e, { i: r, j: c }) => filledDot(e, `\\hat{${letter}}_{${r},${c}}`),
    },
    highlight: ({ row: r }) => ({ 0: row(r), 3: row(r), 4: row(r) }),
    operands: {
      [letter]: letter,
      ...ROPE_TABLES,
    },
    numpy: (structure, at) => (letter === 'K' ? ofKvHead : ofHead)(id)(structure, at) ?? ofHead(id)(structure, at),
  });
}

const fromWhich = (c, letter) =>
  c.kind === 'cross' ? (letter === 'Q' ? ' of the target (X_q)' : ' of the source (X_kv)') : '';

function fresh(id, letter, title) {
  return {
    id,
    group: 'head',
    sharedByGroup: true,
    decodeStep: true,
    title,
    result: `${letter.toLowerCase()}_t`,
    figure: () => [{ operand: 0 }, { glyph: '@' }, { operand: 1 }],
    formula: (c) => `${letter.toLowerCase()}_t = x_t\\,W^{${letter}}${grouped(c) ? '_g' : c.numHeads > 1 ? '_n' : ''}`,
    explanation: () =>
      `Token t\u2019s ${letter === 'K' ? 'key' : 'value'}: the only ${letter === 'K' ? 'key' : 'value'} ` +
      `this step computes. Every earlier token\u2019s ${letter === 'K' ? 'key' : 'value'} is already in ` +
      'the cache, unchanged: under the causal mask it depends only on that token and the ones before it ' +
      '(in one layer on that token alone; deeper in a stack on every earlier token too), never on a later one, ' +
      'so a new token leaves it as it was. A bidirectional encoder could not cache: there a new token would ' +
      'change the keys and values of every earlier token from the second layer on.',
    explain: {
      symbolic: (i, j) => `${letter.toLowerCase()}_{${i},${j}} = \\sum_a x_{${i},a}\\,W^{${letter}}_{a,${j}}`,
      filled: (e, { i: r, j: c }) => filledDot(e, `${letter.toLowerCase()}_{${r},${c}}`),
    },
    highlight: ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) }),
  };
}

function cache(id, letter, title) {
  return {
    id,
    group: 'head',
    sharedByGroup: true,
    decodeStep: true,
    title,
    result: `${letter}_cache`,
    figure: () => [{ operand: 0 }, { glyph: '\u2295 rows' }, { operand: 1 }],
    terms: ['ring'],
    // The engine's term "ring": the window's W slots were full and row t overwrote the oldest (the
    // oldest behind the pinned rows, under sink tokens).
    formula: (c, stage) => {
      const row = letter.toLowerCase();
      if (!stage.terms.includes('ring'))
        return `${letter}_{\\le t} = \\begin{bmatrix} ${letter}_{< t} \\\\ ${row}_t \\end{bmatrix}`;
      const slot = c.sinkTokens ? '\\text{sinks} + (t - \\text{sinks}) \\bmod (W - \\text{sinks})' : 't \\bmod W';
      return `${letter}[${slot}] \\leftarrow ${row}_t`;
    },
    explanation: ({ stage, config: c }) => {
      const what = letter === 'K' ? 'keys' : 'values';
      const slot = c.cacheSlots[stage.step];
      const left = stage.step > 0 ? c.slotTokens[stage.step - 1][slot] : null; // the token it held
      if (stage.terms.includes('ring') && c.sinkTokens)
        return (
          `The cache is full: it holds W = ${c.window} rows, the first ${c.sinkTokens} pinned to the sink ` +
          `tokens 0 to ${c.sinkTokens - 1}, which never leave, and a ring of W \u2212 ${c.sinkTokens} = ` +
          `${c.window - c.sinkTokens} slots for the latest tokens. Token ${stage.step}\u2019s row overwrites slot ` +
          `${slot}, which held token ${left}\u2019s, the oldest outside the sinks. Each key keeps the position it ` +
          'was turned at; StreamingLLM itself renumbers positions inside the cache (0 to W \u2212 1), which this ' +
          'stepper does not.'
        );
      if (stage.terms.includes('ring'))
        return (
          `The cache is full: a window of W = ${c.window} keeps the ${what} of the last ${c.window} tokens ` +
          `only, in a ring of ${c.window} slots. Token ${stage.step}\u2019s row overwrites slot ` +
          `${slot}, which held token ${left}\u2019s, the one that just left ` +
          'the window: the bytes held stay those of W rows however long the sequence grows.'
        );
      const before =
        stage.step === 0
          ? `The cache is empty before the first step`
          : `The ${what} of tokens 0 to ${stage.step - 1} come from the cache`;
      return (
        `${before}; the last row, token ${stage.step}\u2019s, was computed just now ` +
        `and is appended. The cache grows by one row per step and is never recomputed.`
      );
    },
    explain: null,
    highlight: () => ({}),
    view: { newRow: true },
  };
}

export const PROJECTION_STAGES = [
  entry({
    ...projection(
      'q',
      'Q',
      'Queries Q',
      (c) => `Every token${fromWhich(c, 'Q')} is projected to a query: row t of Q says what token t is looking for.`,
    ),
    operands: { X: 'X', X_q: 'X_q', x_t: 'x_t', W_Q: 'W_Q' },
    firstView: true,
    numpy: ofHead('q', 'Q'),
  }),
  entry({
    ...projection(
      'k',
      'K',
      'Keys K',
      (c) => `Every token${fromWhich(c, 'K')} is projected to a key: row j of K is what token j can be found by.`,
    ),
    operands: { X: 'X', X_kv: 'X_kv', W_K: 'W_K', W_UK: 'W_UK' },
    firstView: true,
    numpy: ofHead('k', 'K'),
  }),
  entry({
    ...projection(
      'v',
      'V',
      'Values V',
      (c) =>
        `Every token${fromWhich(c, 'V')} is projected to a value: row j of V is ` +
        `what token j passes on when it is attended to. d_v may differ from d_k.`,
    ),
    operands: { X: 'X', X_kv: 'X_kv', W_V: 'W_V', W_UV: 'W_UV' },
    firstView: true,
    numpy: ofHead('v', 'V'),
  }),
  normalised('q_norm', 'Q', 'Queries normalised (QK-norm)'),
  normalised('k_norm', 'K', 'Keys normalised (QK-norm)'),
  turned('q_rot', 'Q', 'Queries turned by position (RoPE)'),
  turned('k_rot', 'K', 'Keys turned by position (RoPE)'),
  entry({
    ...fresh('k_new', 'K', 'Its key k_t'),
    operands: { x_t: 'x_t', W_K: 'W_K' },
    quiz: [cacheRowsQuestion],
    numpy: ofKvHead('k_new'),
  }),
  entry({
    ...fresh('v_new', 'V', 'Its value v_t'),
    operands: { x_t: 'x_t', W_V: 'W_V' },
    numpy: ofKvHead('v_new'),
  }),
  entry({
    ...cache('k_cache', 'K', 'Key cache'),
    operands: { K_cache: 'K (cached)' },
    numpy: ofKvHead('k_cache'),
  }),
  entry({
    ...cache('v_cache', 'V', 'Value cache'),
    operands: { V_cache: 'V (cached)' },
    numpy: ofKvHead('v_cache'),
  }),
];
