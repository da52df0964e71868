// One stage as CSV (RFC 4180): a header row of column labels, then one row per matrix row led
// by its label, the same labels the heatmap shows (tokens on token axes, else 0, 1, …). Values
// at full precision; −∞ is written "-Infinity" (what JavaScript, numpy and spreadsheets read).

// The shortest text that reads back as the same double (−0 with its sign).
export const fullText = (v) => (Object.is(v, -0) ? '-0' : String(v));

// A field is quoted when it holds a comma, a quote or a line break (quotes doubled).
export function csvField(text) {
  const s = String(text);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

// A label a spreadsheet could take for a formula (=1+2, +A1, -A1, @SUM…) gets a leading ' so it
// stays text: tokens come from links anyone can write. Numbers are never labels' business.
export function labelField(text) {
  const s = String(text);
  return csvField(/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
}

/** → CSV text; corner: the top-left cell (e.g. "T \\ T_kv"). Lines end in CRLF, as RFC 4180. */
export function stageCsv({ shape, values }, rowLabels, colLabels, corner = '') {
  const [rows, cols] = shape;
  if (rowLabels.length !== rows || colLabels.length !== cols) {
    throw new Error(`csv: ${rowLabels.length} × ${colLabels.length} labels for shape (${rows}, ${cols})`);
  }
  const lines = [[corner, ...colLabels].map(labelField).join(',')];
  for (let r = 0; r < rows; r += 1) {
    const cells = [labelField(rowLabels[r])];
    for (let c = 0; c < cols; c += 1) cells.push(csvField(fullText(values[r * cols + c])));
    lines.push(cells.join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
