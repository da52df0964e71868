// Operand captions an entry declares (entry.operands: { [the engine's operand name]: caption |
// { label, nonNegative } | (operand) → caption }); an operand named after a stage needs none,
// it takes that stage's result label and sign (model/stage-table.js operandCaption).

/** { label, nonNegative: true }: an operand that cannot be negative. */
export const nonNegative = (label) => ({ label, nonNegative: true });

/** RoPE's tables, the operands of every turned stage (q_rot, k_rot, q_rope, k_rope). */
export const ROPE_TABLES = {
  '\u03b8': nonNegative('\u03b8'),
  angle: nonNegative('angle \u03c6'),
  cos: 'cos \u03c6',
  sin: 'sin \u03c6',
  pairs: nonNegative('pairs (a, b)'),
};
