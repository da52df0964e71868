// The one reduction the page does itself, for display only: each shown row of the attention
// weights added up, so the figure can print "Σ = 1.000" beside it. Every other number on the
// page comes from the engine (the trace or engine.explain).

import { formatCell } from './format.js';

export function rowTotalsForDisplay(values, rows, cols) {
  const out = [];
  for (let i = 0; i < rows; i += 1) {
    let total = 0;
    for (let j = 0; j < cols; j += 1) total += values[i * cols + j];
    out.push(formatCell(total));
  }
  return out;
}
