// What a chosen cell lights in a stage's operands: whole rows, columns or single cells, and the
// row-by-column pattern of a product. Shared by the stage entries' highlight functions.

export const row = (r) => ({ rows: [r] });
export const col = (c) => ({ cols: [c] });
export const cell = (r, c) => ({ cells: [[r, c]] });

/** A product's cell (r, c): row r of operand 0 and column c of operand 1. */
export const dot = ({ row: r, col: c }) => ({ 0: row(r), 1: col(c) });
