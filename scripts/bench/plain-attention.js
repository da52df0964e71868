// The bench's baseline: multi-head attention in plain JavaScript, straightforward loops
// on row-major Float64Arrays. Only `npm run bench` uses it; the page never does.

// a: (m, k), b: (k, n) → (m, n), i-k-j order.
function matmul(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      for (let j = 0; j < n; j++) c[i * n + j] += aip * b[p * n + j];
    }
  return c;
}

// a: (m, k), b: (n, k) → a · bᵀ: (m, n).
function matmulBt(a, b, m, k, n) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += a[i * k + p] * b[j * k + p];
      c[i * n + j] = s;
    }
  return c;
}

// s: (t, t) scaled by 1/divisor, then softmax per row (max subtracted); under the causal mask
// row i keeps keys j ≤ i and the rest of the row is 0.
function scaledSoftmaxRows(s, t, divisor, causal) {
  const w = new Float64Array(t * t);
  for (let i = 0; i < t; i++) {
    const keys = causal ? i + 1 : t;
    let max = -Infinity;
    for (let j = 0; j < keys; j++) max = Math.max(max, s[i * t + j] / divisor);
    let sum = 0;
    for (let j = 0; j < keys; j++) {
      w[i * t + j] = Math.exp(s[i * t + j] / divisor - max);
      sum += w[i * t + j];
    }
    for (let j = 0; j < keys; j++) w[i * t + j] /= sum;
  }
  return w;
}

/**
 * x: (t, d); wq, wk, wv: h arrays (d, dk); wo: (h·dk, d) → (t, d), causal or not.
 * With trace, every intermediate is kept, as the engine's run() keeps its stages.
 */
export function multiHeadAttention({ x, wq, wk, wv, wo, t, d, h, dk, causal }, trace = null) {
  const concat = new Float64Array(t * h * dk);
  for (let head = 0; head < h; head++) {
    const q = matmul(x, wq[head], t, d, dk);
    const k = matmul(x, wk[head], t, d, dk);
    const v = matmul(x, wv[head], t, d, dk);
    const scores = matmulBt(q, k, t, dk, t);
    const weights = scaledSoftmaxRows(scores, t, Math.sqrt(dk), causal);
    const out = matmul(weights, v, t, t, dk);
    for (let i = 0; i < t; i++) concat.set(out.subarray(i * dk, (i + 1) * dk), i * h * dk + head * dk);
    trace?.push(q, k, v, scores, weights, out);
  }
  const output = matmul(concat, wo, t, h * dk, d);
  trace?.push(concat, output);
  return output;
}
