// An operand's caption and sign, as the stage entry that shows it declares them (entry.operands:
// { [the engine's operand name]: caption | { label, nonNegative } | (operand) → caption }).

const declared = (entry, op) => entry.operands[op.name];

/** The caption the figure gives an operand of this stage. */
export function operandCaption(entry, op) {
  const d = declared(entry, op);
  if (typeof d === 'function') return d(op);
  return typeof d === 'object' ? d.label : (d ?? op.name);
}

/** Whether the operand can never be negative (drawn with the sequential palette from 0). */
export function operandNonNegative(entry, op) {
  return Boolean(declared(entry, op)?.nonNegative);
}

/** { label, nonNegative: true }: an operand that cannot be negative. */
export const nonNegative = (label) => ({ label, nonNegative: true });
