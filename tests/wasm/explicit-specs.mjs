// Small valid explicit specs for the error and heap tests, with fields overridden:
// self-attention with T = D = 2, one head, DK = DV = 2 and W_O; cross-attention from 2 queries
// to 3 keys without W_O.
export const I2 = [
  [1, 0],
  [0, 1],
];

export const explicit = (fields) => ({
  X: [
    [1, 2],
    [3, 4],
  ],
  W_Q: [I2],
  W_K: [I2],
  W_V: [I2],
  W_O: I2,
  ...fields,
});

export const explicitCross = (fields) => ({
  kind: 'cross',
  X_q: I2,
  X_kv: [
    [1, 0],
    [0, 1],
    [1, 1],
  ],
  W_Q: [I2],
  W_K: [I2],
  W_V: [I2],
  ...fields,
});
