// Operand captions an entry declares (entry.operands: { [the engine's operand name]: caption |
// { label, nonNegative } | (operand) → caption }); an operand named after a stage needs none,
// it takes that stage's result label and sign (model/stage-table.js operandCaption).

/** { label, nonNegative: true }: an operand that cannot be negative. */
export const nonNegative = (label) => ({ label, nonNegative: true });
