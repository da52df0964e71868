// The bench's backward pass (issue 21): attention_backward untraced (which runs its own forward
// first) against forward() at the same X, weights and dO, causal and not, from bench.cpp's JSON
// lines (native, -march=native and WASM). Both ran in turns; a ratio is the median over rounds of
// backward / forward in the same round, of wall times and of CPU times. The multiply-adds are
// bench.cpp's counts (backward_bench.hpp): the measured ratio beside the counted one.

const pad = (s, n) => String(s).padStart(n);
const fixed = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const mega = (macs) => (macs / 1e6).toFixed(1);

function backwardLines(lines) {
  const found = lines.filter((n) => n.what === 'backward');
  if (found.length === 0) throw new Error('bench.cpp printed no "backward" line');
  return found;
}

const cell = (n) =>
  n ? `${fixed(n.forward_ms)} / ${fixed(n.backward_ms)}: ${n.ratio.toFixed(2)}× (${n.cpu_ratio.toFixed(2)}×)` : '—';

// The table as lines of text. builds: { native, march, wasm }, each bench.cpp's lines.
export function backwardTable(builds) {
  const native = backwardLines(builds.native);
  const out = [
    'backward pass against forward, W_O: attention_backward untraced (its own forward included) and forward(), ' +
      'in turns: forward / backward median ms, then the median of backward / forward in the same round ' +
      '(of CPU times); M MACs forward / backward counted from the sizes (the gradient products over all ' +
      'T × T pairs; in brackets the backward were they to stop at the visible keys)',
    ['', 'M MACs forward / backward', 'native', 'march', 'WASM']
      .map((s, i) => pad(s, i === 0 ? 26 : i === 1 ? 34 : 30))
      .join(' '),
  ];
  for (const n of native) {
    const at = (lines) => lines.find((l) => l.what === 'backward' && l.causal === n.causal);
    const what = `(${n.t}, ${n.d}, ${n.h})${n.causal ? ' causal' : ' no mask'}`;
    const macs =
      `${mega(n.forward_macs)} / ${mega(n.backward_macs)}: ${(n.backward_macs / n.forward_macs).toFixed(2)}× ` +
      `(${(n.backward_macs_visible / n.forward_macs).toFixed(2)}×)`;
    const cells = [n, at(builds.march), at(builds.wasm)].map(cell);
    out.push([pad(what, 26), pad(macs, 34), ...cells.map((c) => pad(c, 30))].join(' '));
  }
  return out;
}
