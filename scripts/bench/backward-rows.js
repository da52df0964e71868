// The bench's backward pass (issue 21): attention_backward untraced (which runs its own forward
// first) against forward() at the same X, weights and dO, causal and not, from bench.cpp's JSON
// lines (native, -march=native and WASM). Both ran in turns; a ratio is the median over rounds of
// backward / forward in the same round, of wall times and of CPU times. The multiply-adds are
// bench.cpp's counts (backward_bench.hpp): the measured ratio beside the counted one. Then the
// window of 64 keys from 256 to 2048 tokens: each time beside the one at half the tokens, where
// work that follows T·W doubles and work that follows T² quadruples.

const pad = (s, n) => String(s).padStart(n);
const fixed = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const mega = (macs) => (macs / 1e6).toFixed(1);

function backwardLines(lines) {
  const found = lines.filter((n) => n.what === 'backward' && !n.window);
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
      '(of CPU times); M MACs forward / backward counted from the sizes (the gradient products over the ' +
      'visible keys, as the forward)',
    ['', 'M MACs forward / backward', 'native', 'march', 'WASM']
      .map((s, i) => pad(s, i === 0 ? 26 : i === 1 ? 34 : 30))
      .join(' '),
  ];
  for (const n of native) {
    const at = (lines) => backwardLines(lines).find((l) => l.causal === n.causal);
    const what = `(${n.t}, ${n.d}, ${n.h})${n.causal ? ' causal' : ' no mask'}`;
    const counted = (n.backward_macs / n.forward_macs).toFixed(2);
    const macs = `${mega(n.forward_macs)} / ${mega(n.backward_macs)}: ${counted}×`;
    const cells = [n, at(builds.march), at(builds.wasm)].map(cell);
    out.push([pad(what, 26), pad(macs, 34), ...cells.map((c) => pad(c, 30))].join(' '));
  }
  return out;
}

// The window rows as lines of text: each build's backward ms at each T, and × the previous T's.
export function windowedBackwardTable(builds) {
  const rows = (lines) => lines.filter((n) => n.what === 'backward' && n.window);
  const native = rows(builds.native);
  if (native.length === 0) throw new Error('bench.cpp printed no windowed "backward" line');
  const out = [
    `backward pass under a window of ${native[0].window} keys, causal, (T, ${native[0].d}, ${native[0].h}), W_O: ` +
      'attention_backward untraced median ms, × the time at half the tokens (2× where the work follows T·W, ' +
      '4× where it follows T²); M MACs counted',
    ['T', 'M MACs backward', 'native', 'march', 'WASM']
      .map((s, i) => pad(s, i === 0 ? 6 : i === 1 ? 16 : 18))
      .join(' '),
  ];
  const times = [native, rows(builds.march), rows(builds.wasm)];
  native.forEach((n, i) => {
    const cells = times.map((build) => {
      const now = build[i];
      if (!now) return '—';
      const before = build[i - 1];
      return `${fixed(now.backward_ms)}${before ? ` (${(now.backward_ms / before.backward_ms).toFixed(2)}×)` : ''}`;
    });
    out.push([pad(n.t, 6), pad(mega(n.backward_macs), 16), ...cells.map((c) => pad(c, 18))].join(' '));
  });
  return out;
}
