// The dimensions of a shape equation and the colour class each one gets on every stage.
// The engine sends an equation twice, e.g. "(5, 16) @ (16, 4) → (5, 4)" and
// "(T, d_model) @ (d_model, d_k) → (T, d_k)"; here the two are zipped token by token.

// symbol → its colour class (dim-<class>): a decode step's t, t+1 and W, a tile's B_r and B_c too.
const CLASSES = {
  T: 'T',
  T_q: 'T_q',
  T_kv: 'T_kv',
  d_model: 'd_model',
  d_k: 'd_k',
  d_v: 'd_v',
  d_ff: 'd_ff',
  d_c: 'd_c', // MLA's latent
  d_r: 'd_r', // MLA's RoPE parts
  h: 'h',
  t: 't',
  't+1': 't1',
  W: 'W', // a full window's cache rows
  B_r: 'B_r',
  B_c: 'B_c',
  blocks: 'blocks',
  g: 'g', // query heads per K/V head: a sum over the group
  parts: 'parts', // the backward pass's dX: one part per projection
  V: 'V', // the trained model's vocabulary
  'T \u2212 1': 'T', // the model's positions that have a next token: T's colour
};

export const DIMS = Object.keys(CLASSES);

// "h·d_v" → h, d_v joined by '·'; MLA's "(d_k + d_r)" → d_k, d_r joined by ' + '. Unknown symbols
// keep their text and get no colour.
function symbolParts(symbol) {
  const sum = /^\((.*)\)$/.exec(symbol);
  const [texts, joiner] = sum ? [sum[1].split(' + '), ' + '] : [symbol.split('\u00b7'), '\u00b7'];
  return texts.map((s, i) => ({ text: s, dim: CLASSES[s] ?? null, joiner: i ? joiner : '' }));
}

// Splits symbolic around the literal pieces of the numeric equation, in order.
function symbolsBetween(literals, symbolic) {
  if (!symbolic.startsWith(literals[0])) return null;
  const symbols = [];
  let pos = literals[0].length;
  for (let i = 1; i < literals.length; i += 1) {
    const lit = literals[i];
    const end = lit === '' ? symbolic.length : symbolic.indexOf(lit, pos + 1);
    if (end < 0) return null;
    symbols.push(symbolic.slice(pos, end));
    pos = end + lit.length;
  }
  return pos === symbolic.length ? symbols : null;
}

// → [{ kind: 'text', text } | { kind: 'dim', value, symbol, parts: [{ text, dim }] }],
// or null when the two strings do not have the same token structure.
export function alignEquation(equation, symbolic) {
  const pieces = equation.split(/(\d+)/);
  const literals = pieces.filter((_, i) => i % 2 === 0);
  const symbols = symbolsBetween(literals, symbolic);
  if (!symbols || symbols.length !== (pieces.length - 1) / 2) return null;
  return pieces
    .map((piece, i) => {
      if (i % 2 === 0) return { kind: 'text', text: piece };
      const symbol = symbols[(i - 1) / 2];
      return { kind: 'dim', value: piece, symbol, parts: symbolParts(symbol) };
    })
    .filter((t) => t.kind === 'dim' || t.text !== '');
}

// A matrix caption's axes, e.g. ['T', 'd_k'] with sizes → the same token shape as an equation.
export function shapeTokens(axes, shape) {
  const dimToken = (axis, n) => ({ kind: 'dim', value: String(n), symbol: axis, parts: symbolParts(axis) });
  return [
    { kind: 'text', text: '(' },
    dimToken(axes[0], shape[0]),
    { kind: 'text', text: ', ' },
    dimToken(axes[1], shape[1]),
    { kind: 'text', text: ')' },
  ];
}
