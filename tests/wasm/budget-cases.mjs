// The hostile review's rows D (memory) and E (time): each call within every field's own limit but
// past what one call may take together, and the message that refuses it by name before the work (or
// the rest of the reading) is done. tests/wasm/budgets.test.mjs makes each call;
// tests/browser/hostile-readme.mjs prints them into docs/bad-input.md. A message ending in "…" is
// matched as a prefix.

const flat = (rows, cols, fill = 0.01) => ({ shape: [rows, cols], values: new Float64Array(rows * cols).fill(fill) });

// 1024 × 1024 each: X, and W, 64 references to one matrix, as W_Q, W_K and W_V (192 Mi numbers to
// read, 1.5 GiB).
export const X = flat(1024, 1024);
const ONE = flat(1024, 1024);
export const W = Array.from({ length: 64 }, () => ONE);

// A q cell of d_model 1024: 1024 terms x·w = product, and the explanation's 19 scalars.
const PER_CELL = 19 + 3 * 1024;
const FIRST = Math.floor(4194304 / PER_CELL) + 1;
export const WIDE_CELLS = Array.from({ length: 65536 }, (_, i) => ({
  stage: 'q',
  head: 0,
  row: i % 256,
  col: i % 1024,
}));

// The largest model the limits allow but for dK = dV = 64: a forward pass of one sequence takes
// 679 million multiply-adds (4 layers of 128 × 256 · 16 heads · 192, 16 · 128² · 128, 128 · 1024 ·
// 256, then 128 · 256 · 256), against the 69 billion a call may take.
export const BIG = { vocab: 256, seqLen: 128, dModel: 256, numLayers: 4, numHeads: 16, dK: 64, dV: 64, seed: 1 };
export const sequences = (n) =>
  Array.from({ length: n }, (_, s) => Array.from({ length: 129 }, (_, t) => (s + t) % 256));

// The default induction model: W_E and W_U (32 × 32), W_P (24 × 32), and 2 layers of 2 heads' W_Q, W_K,
// W_V (32 × 16) and W_O (32 × 32); a checkpoint holds it, Adam's m and v.
const PARAMS = 2 * 32 * 32 + 24 * 32 + 2 * (2 * 3 * 32 * 16 + 32 * 32);

/** [row, call, message] */
export const BUDGET_CASES = [
  [
    'D28',
    (e) => e.explain({ seqLen: 256, dModel: 1024, numHeads: 1 }, WIDE_CELLS),
    `cells: the first ${FIRST} of 65536 cells take ${FIRST * PER_CELL} numbers apart, more than the limit 4194304; ` +
      'ask for fewer cells at a time',
  ],
  [
    'D29',
    (e) => e.run({ X, W_Q: W, W_K: W, W_V: W }),
    'W_Q[30].values: the argument holds more than 33554432 numbers by here, more than every limit allows ' +
      'together (the weights of a spec: 16777216); nothing was run',
  ],
  [
    'D30',
    (e) => e.run({ X, W_Q: W, W_K: W, W_V: W, rope: { convention: '\u20ac'.repeat(2e8) } }),
    'W_Q[30].values: the argument holds more than 33554432 numbers by here, …',
  ],
  [
    'D30',
    (e) => e.run({ seqLen: 4, dModel: 8, rope: { convention: '\u20ac'.repeat(2e8) } }),
    'rope.convention: "\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac\u20ac…',
  ],
  [
    'E31',
    (e) => e.lossAndGradients(e.initModel(BIG), { tokens: sequences(256) }),
    'tokens: 256 sequences of this model, forward and backward, take about 522 billion multiply-adds, ' +
      'more than the 69 billion one call may take; give fewer sequences',
  ],
  [
    'E32',
    (e) => e.headScores(e.initModel(BIG), sequences(256)),
    'tokens: 256 sequences of this model take about 174 billion multiply-adds, more than the 69 billion one ' +
      'call may take; give fewer sequences',
  ],
  [
    'E33',
    (e) =>
      e.train({
        task: 'induction',
        vocab: 256,
        seqLen: 128,
        dModel: 256,
        numLayers: 4,
        numHeads: 16,
        batch: 256,
        steps: 100000,
        checkpointEvery: 1,
      }),
    'steps: 100000 steps of 256 sequences of this model take about 15784027 billion multiply-adds, more than ' +
      "the 69 billion one call may take; train in parts of fewer steps, each from the last one's checkpoint",
  ],
  [
    'E33',
    (e) => e.train({ task: 'induction', steps: 1000, checkpointEvery: 1 }),
    `checkpointEvery: 1001 checkpoints of this model hold ${1001 * 3 * PARAMS} numbers, ` +
      'more than the limit 16777216; keep fewer (a larger checkpointEvery) or train fewer steps',
  ],
];
