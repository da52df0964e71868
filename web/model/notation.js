// The page's one notation: every symbol a stage's formula writes, with its one meaning. The
// Notation panel under a formula lists exactly the symbols that formula uses (symbolsOf reads
// them from its TeX), each matrix with its shape in this trace; tests read every formula of every
// preset and feature combination and find each of its symbols here. Plain text (Unicode), so the
// panel needs no typesetting.

// Each row: the TeX forms a formula writes the symbol in, how the panel prints it, what it means,
// and for a matrix the stage whose shape it has (the trace's axes).
const row = (tex, symbol, meaning, stage = null) => ({ tex: [tex].flat(), symbol, meaning, stage });

export const SYMBOLS = [
  // The inputs and the projections.
  row('X', 'X', 'the input: one row per token, d_model columns', 'x'),
  row('X_q', 'X_q', 'cross-attention\u2019s queries\u2019 input (the target sequence)', 'x_q'),
  row('X_{kv}', 'X_kv', 'cross-attention\u2019s keys\u2019 and values\u2019 input (the source sequence)', 'x_kv'),
  row('PE', 'PE', 'the sinusoidal position encoding added to X', 'x_pos'),
  row('Q', 'Q', 'the queries, one row per token (Q\u2099: head n\u2019s)', 'q'),
  row('K', 'K', 'the keys, one row per token (K_g: K/V head g\u2019s)', 'k'),
  row('V', 'V', 'the values, one row per token (V_g: K/V head g\u2019s)', 'v'),
  row(['W^{Q}', 'W^{K}', 'W^{V}'], 'W^Q, W^K, W^V', 'the projections a head learns: d_model \u2192 d_k (d_v for V)'),
  row('W^{O}', 'W^O', 'the output projection: the concatenated heads back to d_model'),
  row('x', 'x_t', 'a decode step\u2019s one row of X: the new token'),
  row('q', 'q', 'one query row (q_t: the new token\u2019s at decode step t)'),
  row('k', 'k', 'one key row (k_t: the new token\u2019s)'),
  row('v', 'v', 'one value row (v_t: the new token\u2019s)'),
  row('o', 'o_t', 'decode step t\u2019s output row'),
  row(
    ['K_{\\le t}', 'K_{< t}'],
    'K_\u2264t, K_<t',
    'the cached keys of tokens 0 \u2026 t (0 \u2026 t \u2212 1 before the step)',
    'k_cache',
  ),
  row(
    ['V_{\\le t}', 'V_{< t}'],
    'V_\u2264t, V_<t',
    'the cached values of tokens 0 \u2026 t (0 \u2026 t \u2212 1 before the step)',
    'v_cache',
  ),
  // Multi-head latent attention (DeepSeek-V2's letters).
  row(
    'c^{KV}',
    'c^KV',
    'MLA\u2019s latent: one row of d_c numbers per token, the one thing cached besides K^R',
    'c_kv',
  ),
  row(
    ['W^{DKV}', 'W^{UK}', 'W^{UV}'],
    'W^DKV, W^UK, W^UV',
    'MLA\u2019s projections down to the latent (d_model \u2192 d_c) and up from it to a head\u2019s keys and values',
  ),
  row(['W^{QR}', 'W^{KR}'], 'W^QR, W^KR', 'MLA\u2019s projections to the RoPE parts of the queries and the shared key'),
  row('Q^{R}', 'Q^R', 'a head\u2019s query part that RoPE turns (MLA), d_r columns', 'q_rope'),
  row('K^{R}', 'K^R', 'the key part that RoPE turns, shared by every head (MLA), d_r columns', 'k_rope'),
  row(
    'Q^{C}',
    'Q^C',
    'a head\u2019s queries taken into the latent: Q\u00b7W^UK\u1d40 (MLA\u2019s absorbed form)',
    'q_absorbed',
  ),
  row('H^{C}', 'H^C', 'a head\u2019s output in the latent: A\u00b7c^KV, before W^UV (MLA)', 'latent_head'),
  // One head's pass.
  row(
    ['\\check{Q}'],
    'Q\u030c',
    'the queries after QK-norm: each row divided by its root mean square, times \u03bb^Q',
    'q_norm',
  ),
  row(
    ['\\check{K}'],
    'K\u030c',
    'the keys after QK-norm: each row divided by its root mean square, times \u03bb^K',
    'k_norm',
  ),
  row(
    ['\\lambda^{Q}', '\\lambda^{K}'],
    '\u03bb^Q, \u03bb^K',
    'QK-norm\u2019s gains: one per column of a head, for the queries and for the keys (1 unless learned)',
  ),
  row(['\\hat{Q}'], 'Q\u0302', 'the queries turned by RoPE', 'q_rot'),
  row(['\\hat{K}'], 'K\u0302', 'the keys turned by RoPE', 'k_rot'),
  row('S', 'S', 'the scores Q\u00b7K\u1d40: every query against every key', 'scores'),
  row(['\\tilde S', '\\tilde{S}'], 'S\u0303', 'the scores scaled by 1/\u221ad_k', 'scaled'),
  row(
    ['\\bar S'],
    'S\u0304',
    'the logits soft-capped: \u03ba\u00b7tanh(S\u0303 / \u03ba), each within \u00b1\u03ba',
    'capped',
  ),
  row('\\kappa', '\u03ba', 'the soft cap: no logit passes \u00b1\u03ba'),
  row('\\zeta', '\u03b6\u2099', 'head n\u2019s sink logit: one more key in its softmax, holding no value'),
  row('B', 'B', 'ALiBi\u2019s bias: \u2212m\u2099 times the distance from query to key', 'biased'),
  row('m', 'm\u2099', 'head n\u2019s ALiBi slope'),
  row('M', 'M', 'the mask: 0 where a query sees a key, \u2212\u221e where it does not', 'masked'),
  row('L', 'L', 'the logits the softmax reads (S\u0303 or its cap S\u0304, plus B and M when they apply)', 'masked'),
  row('A', 'A', 'the attention weights: each row a softmax over the keys, summing to 1', 'weights'),
  row(
    '\\mu',
    '\u03bc',
    'a row\u2019s largest logit (or its head\u2019s sink \u03b6, when larger), which the softmax subtracts first ' +
      '(so e^x never overflows)',
  ),
  row('e', 'e', 'Euler\u2019s number: e^x is the exponential'),
  row('H', 'H', 'a head\u2019s output A\u00b7V (H\u2099: head n\u2019s)', 'head'),
  row('\\text{concat}', 'concat', 'the heads\u2019 outputs side by side', 'concat'),
  row('\\gamma', '\u03b3', 'the pruning gate: 0 in a pruned head\u2019s columns of concat, 1 elsewhere'),
  row('O', 'O', 'the layer\u2019s output (O_I: query block I\u2019s rows of it)', 'output'),
  // Positions.
  row('\\theta', '\u03b8_c', 'RoPE\u2019s rate for pair c: base^(\u22122c/d_rot)'),
  row('\\varphi', '\u03c6_t,c', 'RoPE\u2019s angle for pair c at row t: (t\u2080 + t)\u00b7\u03b8_c'),
  row('\\text{base}', 'base', 'RoPE\u2019s base (10000 unless set)'),
  row('W', 'W', 'the window: a query sees at most W keys, itself included'),
  row('P', 'P', 'the prefix: the first P positions see each other both ways'),
  row('\\text{sinks}', 'sinks', 'the number of sink tokens: the first tokens every later query keeps seeing'),
  row('\\text{valid}', 'valid', 'the number of real keys: those at and after it are padding'),
  // FlashAttention.
  row('Z', 'Z', 'a row\u2019s running sum of exponentials, the softmax\u2019s denominator so far', 'tile_sum'),
  row('E', 'E', 'a tile\u2019s exponentials e^(L \u2212 \u03bc)'),
  row('U', 'U', 'the running output: the weighted values, not yet divided by Z', 'tile_out'),
  row(
    '\\alpha',
    '\u03b1',
    'the factor e^(\u03bc_old \u2212 \u03bc_new) that rescales what was summed under the old max',
  ),
  row('\\text{new}', 'new', 'the value after this tile (unmarked: before it)'),
  // The encoder layer.
  row(
    ['R^{(1)}', 'R^{(2)}'],
    'R\u207d\u00b9\u207e, R\u207d\u00b2\u207e',
    'the residual sums: a sub-layer\u2019s input plus its output',
  ),
  row(['X^{(1)}', 'X^{(2)}'], 'X\u207d\u00b9\u207e, X\u207d\u00b2\u207e', 'the layer-normed residual sums'),
  row('\\varepsilon', '\u03b5', 'a small constant that keeps the division finite (10\u207b\u2076)'),
  row('Y', 'Y', 'the feed-forward network\u2019s hidden layer, before the ReLU', 'ffn_pre'),
  row('Y^{+}', 'Y\u207a', 'the hidden layer after the ReLU: max(0, Y)', 'ffn_hidden'),
  row('F', 'F', 'the feed-forward network\u2019s output', 'ffn_out'),
  row(['W_1', 'W_2'], 'W\u2081, W\u2082', 'the feed-forward network\u2019s weights'),
  row(['b_1', 'b_2'], 'b\u2081, b\u2082', 'the feed-forward network\u2019s biases'),
  // The model.
  row('R', 'R_l', 'the residual stream after l layers: R\u2080 the embeddings, R_N after the last', 'residual'),
  row('W_E', 'W_E', 'the token embedding table: one row per vocabulary token'),
  row('W_P', 'W_P', 'the position embedding table: one row per position'),
  row('W_U', 'W_U', 'the unembedding: the stream to one score per vocabulary token'),
  row('\\text{tokens}', 'tokens', 'the sequence\u2019s token ids'),
  row('z', 'z', 'the model\u2019s logits: one score per position and vocabulary token', 'logits'),
  row('p', 'p', 'the next-token probabilities: softmax(z) along each row', 'probabilities'),
  row('y', 'y_t', 'the token id at position t'),
  row(
    '\\ell',
    '\u2113_t',
    'position t\u2019s loss: \u2212ln of the probability of the token that came next',
    'token_loss',
  ),
  row('\\mathcal{L}', '\u2112', 'the loss: the mean of \u2113_t over the scored positions', 'loss'),
  row('w', 'w_t', '1 where position t is scored, else 0'),
  // Sizes.
  row('T', 'T', 'the number of tokens (T_q and T_kv in cross-attention)'),
  row('\\text{seq\\_len}', 'seq_len', 'the spec\u2019s field for T'),
  row('T_q', 'T_q', 'the number of query tokens'),
  row('T_{kv}', 'T_kv', 'the number of key and value tokens'),
  row('d_k', 'd_k', 'the width of a query and a key'),
  row('d_v', 'd_v', 'the width of a value'),
  row('d_{\\text{model}}', 'd_model', 'the width of a token\u2019s row of X'),
  row('d_{\\text{rot}}', 'd_rot', 'the columns RoPE turns'),
  row('d_c', 'd_c', 'the width of MLA\u2019s latent c^KV'),
  row('d_r', 'd_r', 'the width of MLA\u2019s RoPE parts Q^R and K^R'),
  row('h', 'h', 'the number of query heads'),
  row('N', 'N', 'the number of layers'),
  row('\\mathbb{R}', '\u211d', 'the real numbers: \u211d^(r \u00d7 c) holds r \u00d7 c matrices'),
  // The backward pass.
  row('d', 'd', 'the gradient of the loss: dQ = \u2202\u2112/\u2202Q, of the same shape as Q'),
  // Indices.
  row('i', 'i', 'a query position: a row of S, A, M'),
  row('j', 'j', 'a key position: a column of S, A, M'),
  row("j'", "j'", 'a key position a softmax sums over'),
  row('t', 't', 'a position in the sequence: a decode step, a row of X'),
  row('t_0', 't\u2080', 'the position of row 0 (RoPE\u2019s offset): row t sits at t\u2080 + t'),
  row('a', 'a', 'a feature column (RoPE: the first column of pair c)'),
  row('b', 'b', 'the second column of RoPE\u2019s pair c'),
  row('c', 'c', 'a pair of columns RoPE or PE turn together'),
  row('n', 'n', 'a query head, 0 \u2026 h \u2212 1'),
  row('g', 'g', 'a K/V head: query head n reads K/V head \u230an / group\u230b'),
  row('l', 'l', 'a layer, 0 \u2026 N \u2212 1'),
  row(['u', "u'"], 'u', 'a vocabulary token'),
  row('I', 'I', 'a query block (FlashAttention)'),
  row('J', 'J', 'a key block (FlashAttention)'),
];

// Each TeX form, longest first, so that d_k is read before d, and W^{Q} before W.
const FORMS = SYMBOLS.flatMap((s) => s.tex.map((tex) => ({ tex, symbol: s }))).sort(
  (a, b) => b.tex.length - a.tex.length,
);
const LETTER = /[A-Za-z]/;

// Whether a form is at `at`: a command form (\\mu) as a whole command, not the start of a longer
// one; letters stand each for itself, as in TeX's math (dQ is d and Q, PE a form of its own).
function formAt(tex, at, form) {
  if (!tex.startsWith(form, at)) return false;
  return !(form.startsWith('\\') && LETTER.test(form.at(-1)) && LETTER.test(tex[at + form.length] ?? ''));
}

/** The symbols a formula writes, in order of first use: { symbols: rows of SYMBOLS, unknown: letters
 * no row names }. \text{…} of several words is prose; any other command (\frac, \sum, \cos …) is
 * layout or an operator whose name says what it does. */
export function symbolsOf(tex) {
  const found = new Set();
  const unknown = [];
  for (let at = 0; at < tex.length;) {
    const form = FORMS.find((f) => formAt(tex, at, f.tex));
    if (form) {
      found.add(form.symbol);
      at += form.tex.length;
    } else if (tex.startsWith('\\text{', at) || tex.startsWith('\\operatorname{', at)) {
      at = tex.indexOf('}', at) + 1; // a word, or prose
    } else if (/^\\(begin|end)\{/.test(tex.slice(at))) {
      at = tex.indexOf('}', at) + 1;
    } else if (tex[at] === '\\') {
      at += tex.slice(at + 1).match(/^([A-Za-z]+|.)/)[0].length + 1;
    } else {
      if (LETTER.test(tex[at])) unknown.push(tex[at]);
      at++;
    }
  }
  return { symbols: [...found], unknown };
}

const ZERO_BASED =
  'Everything here counts from 0, as numpy and the engine\u2019s trace do: the heads that ' +
  'Vaswani et al. (2017) number head_1 \u2026 head_h are heads 0 \u2026 h \u2212 1, ' +
  'the first token is position 0, and decode step t is the (t + 1)-th token. ' +
  'Only the progress counter counts from 1, because it counts stages, not positions: ' +
  '\u201cStage 1 of N\u201d is the first.';

const shapeOf = (stage) => (stage ? `(${stage.axes.join(', ')})` : '');

/** The panel under a formula: { table: its symbols, each with its meaning and, for a matrix, its
 * shape in this trace (the first stage of that id: the same head where it has one), note }. */
export function notationView(tex, steps = [], head = null) {
  const stageOf = (id) =>
    (
      steps.find((s) => s.id === id && (head === null || s.head === null || s.head === head)) ??
      steps.find((s) => s.id === id)
    )?.stage;
  const rows = symbolsOf(tex).symbols.map((s) => [s.symbol, s.meaning, shapeOf(s.stage && stageOf(s.stage))]);
  return { table: { headers: ['symbol', 'meaning', 'shape'], rows }, note: ZERO_BASED };
}
