// Draws shape tokens — [{ kind: 'text', text } | { kind: 'dim', value, symbol, parts }] — with
// every dimension in its own colour class (dim-T, dim-d_model, …). Knows nothing of attention.

function part(p) {
  const span = document.createElement('span');
  span.textContent = p.text;
  if (p.dim) span.className = `dim-${p.dim}`;
  return span;
}

function dimToken(token, stacked) {
  const single = token.parts.length === 1 ? token.parts[0].dim : null;
  const box = document.createElement('span');
  box.className = `dim${single ? ` dim-${single}` : ' dim-mixed'}`;
  box.title = `${token.symbol} = ${token.value}`;
  const num = document.createElement('span');
  num.className = 'dim-num';
  num.textContent = token.value;
  box.append(num);
  if (stacked) {
    const sym = document.createElement('span');
    sym.className = 'dim-sym';
    for (const [i, p] of token.parts.entries()) {
      sym.append(p.joiner);
      sym.append(part(p));
    }
    box.append(sym);
  }
  return box;
}

// Fills el with tokens; stacked puts each dimension's symbol under its number.
export function drawShapeTokens(el, tokens, { stacked = false } = {}) {
  el.textContent = '';
  for (const token of tokens) {
    if (token.kind === 'dim' && token.parts.some((p) => p.dim)) {
      el.append(dimToken(token, stacked));
    } else {
      const span = document.createElement('span');
      span.className = 'eq-text';
      span.textContent = token.kind === 'dim' ? token.value : token.text;
      el.append(span);
    }
  }
}
