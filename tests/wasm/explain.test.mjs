// explain() through the WASM engine on every cell of every stage of every preset and custom spec
// (the pruned stage of prunedHeads [1, 3] among them), at every decode step and tile: each cell
// rule's parts, put back together, give the cell's value. Then a cross-attention case by hand.
// engine.presets(), engine.models() and engine.kvCacheBytes: presets.test.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';
import { CASES } from './support.mjs';

const engine = await createEngine();

// How each stage's cells are taken apart (the engine's stage table, written out by hand).
const RULE = {
  x: 'none',
  x_q: 'none',
  x_kv: 'none',
  x_pos: 'sum',
  q: 'dot',
  q_norm: 'rmsNorm',
  k_norm: 'rmsNorm',
  q_rot: 'rotate',
  k_rot: 'rotate',
  k: 'dot',
  v: 'dot',
  scores: 'dotRows',
  scaled: 'scaledDot',
  capped: 'softCap',
  sink: 'sinkShare',
  biased: 'sum',
  masked: 'mask',
  weights: 'softmax',
  head: 'dot',
  c_kv: 'dot',
  k_rope: 'rotate',
  q_rope: 'rotate',
  q_absorbed: 'dotRows',
  latent_head: 'dot',
  concat: 'copyColumn',
  output: 'dot',
  residual1: 'sum',
  norm1: 'norm',
  ffn_pre: 'affine',
  ffn_hidden: 'relu',
  ffn_out: 'affine',
  residual2: 'sum',
  norm2: 'norm',
  x_t: 'none',
  k_new: 'dot',
  v_new: 'dot',
  k_cache: 'none',
  v_cache: 'none',
  stacked: 'none',
  causal_reference: 'none',
  tile_scores: 'scaledDotRows',
  tile_max: 'runningMax',
  tile_sum: 'runningSum',
  tile_out: 'runningOut',
  block_out: 'divideRows',
  reference: 'none',
  pruned: 'gate',
  d_output: 'none',
  d_w_o: 'dotCols',
  d_concat: 'dotRows',
  d_head: 'headColumn',
  d_weights: 'dotRows',
  d_scaled: 'softmaxBackward',
  d_scores: 'divide',
  d_q: 'dot',
  d_q_rot: 'dot',
  d_q_unrot: 'rotate',
  d_k_rot: 'groupDotCols',
  d_k_unrot: 'rotate',
  d_v: 'groupDotCols',
  d_k: 'groupDotCols',
  d_w_q: 'dotCols',
  d_w_k: 'dotCols',
  d_w_v: 'dotCols',
  d_x: 'sum',
  embedded: 'sum',
  residual: 'sum',
  logits: 'dot',
  probabilities: 'softmax',
  token_loss: 'negLog',
  loss: 'mean',
};
// The stage with this id and head at the same decode step or tile (step null for neither).
const sibling = (trace, id, head, step) => trace.stages.find((x) => x.id === id && x.head === head && x.step === step);

const at = (m, row, col) => m.values[row * m.shape[1] + col];
const near = (got, want) => Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want));
const sumOf = (list) => list.reduce((a, b) => a + b, 0);

// Σ terms in order is e.sum; each term is a · b, a from row `row` of `left`.
function assertTerms(e, left, row, where) {
  assertRowTerms(e, [left], row, where);
}

// The same over several lefts side by side: the terms take row `row` of each in turn.
function assertRowTerms(e, lefts, row, where) {
  const cells = lefts.flatMap((left) => Array.from({ length: left.shape[1] }, (_, p) => at(left, row, p)));
  const names = lefts.map((left) => left.name).join(' then ');
  assert.ok(Array.isArray(e.terms), `${where}: terms`);
  assert.equal(e.terms.length, cells.length, `${where}: one term per column of ${names}`);
  e.terms.forEach((t, p) => {
    assert.equal(t.a, cells[p], `${where}: term ${p}'s a`);
    assert.equal(t.a * t.b, t.product, `${where}: term ${p}: a · b = product`);
  });
  assert.equal(sumOf(e.terms.map((t) => t.product)), e.sum, `${where}: Σ products = sum`);
}

// The lefts and rights of a row-by-row product: Q · Kᵀ, or MLA's scores with the decoupled RoPE
// parts (d_r > 0), Q · Kᵀ + q_rope · k_ropeᵀ (DeepSeek-V2 §2.1.3): Q's row, then q_rope's.
function rowFactors(trace, s, where) {
  const [q, k, qRope, kRope] = s.operands;
  const decoupled = s.terms.includes('decoupled-rope');
  assert.equal(decoupled, s.id === 'scores' && (trace.config.dRope ?? 0) > 0, `${where}: decoupled-rope iff d_r > 0`);
  return decoupled ? { lefts: [q, qRope], rights: [k, kRope] } : { lefts: [q], rights: [k] };
}

// The scores' divisor: √d_k, and MLA's √(d_k + d_r) (its q and k carry d_r RoPE columns too).
function divisorOf({ scaleScores, dK, dRope = 0 }) {
  return scaleScores ? Math.sqrt(dK + dRope) : 1;
}

// rule → (trace, stage, row, col, explanation, where) → asserts. Operands are read by position.
const CHECKS = {
  none(trace, s, row, col, e, where) {
    for (const key of [
      'terms',
      'softmax',
      'input',
      'mask',
      'gate',
      'bias',
      'addends',
      'norm',
      'rms',
      'source',
      'rowMax',
      'row',
    ]) {
      assert.equal(e[key], null, `${where}: ${key}`);
    }
  },
  dot(trace, s, row, col, e, where) {
    const [left, right] = s.operands;
    assertTerms(e, left, row, where);
    e.terms.forEach((t, p) => assert.equal(t.b, at(right, p, col), `${where}: term ${p}'s b`));
    assert.equal(e.divisor, 1, `${where}: divisor`);
    assert.ok(near(e.sum, e.value), `${where}: Σ terms ${e.sum} vs ${e.value}`);
  },
  dotRows(trace, s, row, col, e, where) {
    const { lefts, rights } = rowFactors(trace, s, where); // Q · Kᵀ reads row `col` of K (and of k_rope)
    assertRowTerms(e, lefts, row, where);
    const bs = rights.flatMap((k) => Array.from({ length: k.shape[1] }, (_, p) => at(k, col, p)));
    e.terms.forEach((t, p) => assert.equal(t.b, bs[p], `${where}: term ${p}'s b`));
    assert.ok(near(e.sum, e.value), `${where}: Σ terms ${e.sum} vs ${e.value}`);
  },
  scaledDot(trace, s, row, col, e, where) {
    const scores = sibling(trace, 'scores', s.head, s.step);
    assertRowTerms(e, rowFactors(trace, scores, where).lefts, row, where);
    assert.equal(e.divisor, divisorOf(trace.config), `${where}: divisor`);
    assert.ok(near(e.sum / e.divisor, e.value), `${where}: ${e.sum} / ${e.divisor} vs ${e.value}`);
  },
  sinkShare(trace, s, row, col, e, where) {
    const { logits, max, expSum, zeta, sink } = e.softmax;
    logits.forEach((l, k) => assert.equal(l, at(s.operands[0], row, k), `${where}: logit ${k}`));
    assert.equal(zeta, at(s.operands[1], 0, 0), `${where}: \u03b6`);
    assert.equal(zeta, trace.config.sinks[s.head], `${where}: the config's \u03b6`);
    assert.equal(max, Math.max(zeta, ...logits), `${where}: max`);
    assert.ok(near(sink, Math.exp(zeta - max)), `${where}: exp(\u03b6 \u2212 max)`);
    assert.ok(near(sink / expSum, e.value), `${where}: the sink's share`);
    const weights = trace.stages.find((x) => x.id === 'weights' && x.head === s.head && x.step === s.step);
    assert.ok(near(weights.totals[row] + e.value, 1), `${where}: the row's weights and the share make 1`);
  },
  softCap(trace, s, row, col, e, where) {
    const [scaled, kappa] = s.operands;
    assert.equal(e.input, at(scaled, row, col), `${where}: input is the scaled cell`);
    assert.equal(e.cap, at(kappa, 0, 0), `${where}: \u03ba`);
    assert.equal(e.cap, trace.config.softcap, `${where}: the config's \u03ba`);
    // JS's tanh and the engine's libm may round apart by an ulp.
    assert.ok(near(e.cap * Math.tanh(e.input / e.cap), e.value), `${where}: \u03ba\u00b7tanh(input / \u03ba)`);
  },
  rmsNorm(trace, s, row, col, e, where) {
    const [x, gain] = s.operands;
    assert.equal(e.input, at(x, row, col), `${where}: input is the projection's cell`);
    assert.equal(e.rms.gain, at(gain, 0, col), `${where}: the column's gain`);
    assert.equal(e.rms.eps, 1e-6, `${where}: \u03b5`);
    const cells = Array.from({ length: x.shape[1] }, (_, a) => at(x, row, a));
    assert.deepEqual(Array.from(e.rms.row), cells, `${where}: the row`);
    const meanSquare = cells.reduce((sum, v) => sum + v * v, 0) / cells.length;
    assert.ok(near(e.rms.meanSquare, meanSquare), `${where}: mean square ${e.rms.meanSquare} vs ${meanSquare}`);
    assert.ok(near((e.input / Math.sqrt(e.rms.meanSquare + e.rms.eps)) * e.rms.gain, e.value), `${where}: the value`);
  },
  mask(trace, s, row, col, e, where) {
    assert.equal(e.input, at(s.operands[0], row, col), `${where}: input is the scaled cell`);
    assert.ok(e.mask === 0 || e.mask === -Infinity, `${where}: M is 0 or −∞, got ${e.mask}`);
    assert.equal(e.mask, at(s.operands[1], row, col), `${where}: M`);
    assert.equal(e.input + e.mask, e.value, `${where}: input + M`);
    assert.equal(e.masked, e.mask === -Infinity, `${where}: masked iff M = −∞`);
  },
  softmax(trace, s, row, col, e, where) {
    const { logits, max, exps, expSum, zeta, sink } = e.softmax;
    assert.equal(logits.length, s.shape[1], `${where}: one logit per key`);
    logits.forEach((l, k) => assert.equal(l, at(s.operands[0], row, k), `${where}: logit ${k}`));
    // A head's sink: its ζ joins the max, and exp(ζ − max) comes first in the sum.
    const z = s.id === 'weights' && trace.config.sinks ? trace.config.sinks[s.head] : null;
    assert.equal(zeta, z, `${where}: the head's sink logit`);
    assert.equal(max, Math.max(...logits, ...(z === null ? [] : [z])), `${where}: max`);
    assert.equal(sumOf([...(z === null ? [] : [sink]), ...exps]), expSum, `${where}: Σ exps`);
    assert.ok(near(exps[col], Math.exp(logits[col] - max)), `${where}: exp(logit − max)`);
    assert.equal(exps[col] / expSum, e.value, `${where}: exps[col] / expSum`);
    assert.equal(e.masked, logits[col] === -Infinity, `${where}: masked`);
    if (e.masked) assert.ok(Object.is(e.value, 0) && exps[col] === 0, `${where}: a hidden key weighs +0`);
  },
  copyColumn(trace, s, row, col, e, where) {
    const { dV } = trace.config;
    assert.deepEqual(e.source, { head: Math.floor(col / dV), col: col % dV }, `${where}: source`);
    const head = sibling(trace, 'head', e.source.head, s.step);
    assert.equal(at(head, row, e.source.col), e.value, `${where}: the head's cell`);
  },
  negLog(trace, s, row, col, e, where) {
    const [p, next] = s.operands; // the next token's id in row `row` of next
    assert.equal(e.next, at(next, row, 0), `${where}: the next token`);
    assert.equal(e.input, at(p, row, e.next), `${where}: its probability`);
    assert.equal(e.value, -Math.log(e.input), `${where}: \u2212ln p`);
  },
  mean(trace, s, row, col, e, where) {
    const [losses, counted] = s.operands;
    const kept = Array.from(losses.values).filter((_, t) => counted.values[t] === 1);
    assert.deepEqual([...e.addends], kept, `${where}: the counted positions' losses`);
    assert.equal(e.divisor, kept.length, `${where}: divisor`);
    assert.ok(near(sumOf(kept) / kept.length, e.value), `${where}: their mean`);
  },
  sum(trace, s, row, col, e, where) {
    assert.deepEqual(
      [...e.addends],
      s.operands.map((o) => at(o, row, col)),
      `${where}: addends`,
    );
    if (e.addends.length === 2) assert.equal(e.addends[0] + e.addends[1], e.value, `${where}: Σ addends`);
    else assert.ok(near(sumOf([...e.addends]), e.value), `${where}: Σ addends`); // d_x: one per head and part
  },
  dotCols(trace, s, row, col, e, where) {
    const [left, right] = s.operands; // leftᵀ · right reads column `row` of left
    assert.equal(e.terms.length, left.shape[0], `${where}: one term per row of ${left.name}`);
    e.terms.forEach((t, p) => {
      assert.deepEqual([t.a, t.b], [at(left, p, row), at(right, p, col)], `${where}: term ${p}`);
      assert.equal(t.a * t.b, t.product, `${where}: term ${p}: a · b = product`);
    });
    assert.equal(sumOf(e.terms.map((t) => t.product)), e.sum, `${where}: Σ products = sum`);
    assert.ok(near(e.sum, e.value), `${where}: Σ terms ${e.sum} vs ${e.value}`);
  },
  groupDotCols(trace, s, row, col, e, where) {
    // Σ over the group's heads of leftᵀ · right: the first half of the operands are the lefts.
    const half = s.operands.length / 2;
    const rows = s.operands[0].shape[0];
    assert.equal(e.terms.length, half * rows, `${where}: one term per head and row`);
    e.terms.forEach((t, j) => {
      const [left, right, p] = [s.operands[Math.floor(j / rows)], s.operands[half + Math.floor(j / rows)], j % rows];
      assert.deepEqual([t.a, t.b], [at(left, p, row), at(right, p, col)], `${where}: term ${j}`);
    });
    assert.ok(near(e.sum, e.value), `${where}: Σ terms ${e.sum} vs ${e.value}`);
  },
  headColumn(trace, s, row, col, e, where) {
    const { dV } = trace.config;
    assert.deepEqual(e.source, { head: s.head, col: s.head * dV + col }, `${where}: source`); // of d_concat
    assert.equal(at(s.operands[0], row, s.head * dV + col), e.value, `${where}: the column of head ${s.head}`);
  },
  softmaxBackward(trace, s, row, col, e, where) {
    const [a, dA] = s.operands; // dL = A ⊙ (dA − Σ_k dA·A)
    e.terms.forEach((t, k) => assert.deepEqual([t.a, t.b], [at(dA, row, k), at(a, row, k)], `${where}: term ${k}`));
    assert.equal(sumOf(e.terms.map((t) => t.product)), e.sum, `${where}: the row's Σ dA·A`);
    assert.deepEqual([e.input, e.weight], [at(dA, row, col), at(a, row, col)], `${where}: dA and A`);
    assert.ok(near(e.weight * (e.input - e.sum), e.value), `${where}: A · (dA − Σ)`);
    if (e.weight === 0) assert.ok(e.value === 0, `${where}: a hidden key gets no gradient (±0)`);
  },
  divide(trace, s, row, col, e, where) {
    const { scaleScores, dK } = trace.config;
    assert.equal(e.divisor, scaleScores ? Math.sqrt(dK) : 1, `${where}: divisor`);
    assert.equal(e.input, at(s.operands[0], row, col), `${where}: the d_scaled cell`);
    assert.equal(e.input / e.divisor, e.value, `${where}: input / divisor`);
  },
  norm(trace, s, row, col, e, where) {
    const { mean, std, eps, row: values } = e.norm;
    const d = s.shape[1];
    assert.deepEqual(
      [...values],
      Array.from({ length: d }, (_, k) => at(s.operands[0], row, k)),
      `${where}: row`,
    );
    const m = sumOf([...values]) / d;
    assert.ok(near(mean, m), `${where}: mean`);
    assert.ok(near(std, Math.sqrt(sumOf([...values].map((v) => (v - m) ** 2)) / d)), `${where}: population std`);
    assert.equal(eps, 1e-6, `${where}: eps`);
    assert.equal(e.input, values[col], `${where}: input`);
    assert.ok(near((e.input - mean) / (std + eps), e.value), `${where}: (input − mean) / (std + eps)`);
  },
  affine(trace, s, row, col, e, where) {
    const [left, w, b] = s.operands;
    assertTerms(e, left, row, where);
    e.terms.forEach((t, p) => assert.equal(t.b, at(w, p, col), `${where}: term ${p}'s b`));
    assert.equal(e.bias, at(b, 0, col), `${where}: bias`);
    assert.ok(near(e.sum + e.bias, e.value), `${where}: Σ terms + bias`);
  },
  relu(trace, s, row, col, e, where) {
    assert.equal(e.input, at(s.operands[0], row, col), `${where}: input`);
    assert.ok(Object.is(Math.max(0, e.input), e.value), `${where}: max(0, ${e.input}) vs ${e.value}`);
  },
  scaledDotRows(trace, s, row, col, e, where) {
    const [q, k] = s.operands; // Q_i · K_jᵀ reads row `col` of K_j
    assertTerms(e, q, row, where);
    e.terms.forEach((t, p) => assert.equal(t.b, at(k, col, p), `${where}: term ${p}'s b`));
    const { scaleScores, dK, causal } = trace.config;
    assert.equal(e.divisor, scaleScores ? Math.sqrt(dK) : 1, `${where}: divisor`);
    const future = s.tile.keyRows[0] + col > s.tile.queryRows[0] + row;
    assert.equal(e.masked, causal && future, `${where}: masked iff the key comes after the query`);
    assert.equal(e.masked, e.value === -Infinity, `${where}: masked iff −∞`);
    if (!e.masked) assert.ok(near(e.sum / e.divisor, e.value), `${where}: ${e.sum} / ${e.divisor} vs ${e.value}`);
  },
  runningMax(trace, s, row, col, e, where) {
    const [m, scores] = s.operands;
    assert.equal(e.previous, at(m, row, 0), `${where}: previous m`);
    assert.equal(
      e.rowMax,
      Math.max(...Array.from({ length: scores.shape[1] }, (_, k) => at(scores, row, k))),
      `${where}: row max`,
    );
    assert.equal(Math.max(e.previous, e.rowMax), e.value, `${where}: max(previous, rowMax)`);
  },
  runningSum(trace, s, row, col, e, where) {
    const [l, alpha, p] = s.operands;
    assert.equal(e.previous, at(l, row, 0), `${where}: previous l`);
    assert.equal(e.alpha, at(alpha, row, 0), `${where}: α`);
    assert.deepEqual(
      [...e.row],
      Array.from({ length: p.shape[1] }, (_, k) => at(p, row, k)),
      `${where}: P's row`,
    );
    assert.equal(sumOf([...e.row]), e.sum, `${where}: Σ row`);
    assert.ok(near(e.alpha * e.previous + e.sum, e.value), `${where}: α·l + Σ P`);
  },
  runningOut(trace, s, row, col, e, where) {
    const [o, alpha, p, v] = s.operands;
    assert.equal(e.previous, at(o, row, col), `${where}: previous O`);
    assert.equal(e.alpha, at(alpha, row, 0), `${where}: α`);
    assertTerms(e, p, row, where);
    e.terms.forEach((t, k) => assert.equal(t.b, at(v, k, col), `${where}: term ${k}'s b`));
    assert.ok(near(e.alpha * e.previous + e.sum, e.value), `${where}: α·O + Σ P·V`);
  },
  gate(trace, s, row, col, e, where) {
    const [concat, gate] = s.operands;
    assert.deepEqual([concat.name, gate.name], ['concat', 'gate'], `${where}: operands`);
    assert.equal(e.input, at(concat, row, col), `${where}: input is the concat's cell`);
    assert.equal(e.gate, at(gate, 0, col), `${where}: gate`);
    const pruned = trace.config.prunedHeads.includes(Math.floor(col / trace.config.dV));
    assert.equal(e.gate, pruned ? 0 : 1, `${where}: 0 in a pruned head's column, else 1`);
    assert.equal(e.input * e.gate, e.value, `${where}: input · gate`);
    assert.equal(e.terms, null, `${where}: terms`);
  },
  rotate(trace, s, row, col, e, where) {
    const [x, theta, angle, cos, sin, pairs] = s.operands;
    const { base, offset, dims } = trace.config.rope;
    const i = Array.from({ length: dims / 2 }, (_, k) => k).find((k) => [0, 1].some((c) => at(pairs, k, c) === col));
    if (i === undefined) {
      assert.deepEqual(
        e.terms,
        [{ a: at(x, row, col), b: 1, product: at(x, row, col) }],
        `${where}: past dims, x itself`,
      );
      return;
    }
    const [a, b] = [at(pairs, i, 0), at(pairs, i, 1)];
    const position = offset + (s.step ?? 0) + row; // a decode step turns its one row at t
    assert.equal(at(theta, 0, i), base ** ((-2 * i) / dims), `${where}: θ_${i}`);
    const turn = s.id.endsWith('_unrot') ? -1 : 1; // a gradient turned back: the angle −φ
    assert.ok(near(at(angle, row, i), turn * position * at(theta, 0, i)), `${where}: angle = ±position · θ`);
    const [c, n] = [at(cos, row, i), at(sin, row, i)];
    assert.ok(near(c, Math.cos(at(angle, row, i))) && near(n, Math.sin(at(angle, row, i))), `${where}: cos, sin`);
    const want = col === a ? [c, -n] : [n, c];
    assert.deepEqual(
      e.terms.map((t) => [t.a, t.b]),
      [
        [at(x, row, a), want[0]],
        [at(x, row, b), want[1]],
      ],
      `${where}: the pair (${a}, ${b})`,
    );
    assert.ok(near(e.sum, e.value), `${where}: Σ terms ${e.sum} vs ${e.value}`);
  },
  divideRows(trace, s, row, col, e, where) {
    const [o, l] = s.operands;
    assert.equal(e.input, at(o, row, col), `${where}: O`);
    assert.equal(e.divisor, at(l, row, 0), `${where}: l`);
    assert.equal(e.input / e.divisor, e.value, `${where}: O / l`);
  },
};

const seen = new Set();

describe('explain: every cell of every preset and custom spec', () => {
  for (const [name, spec] of CASES) {
    const trace = engine.run(spec);
    const rules = [...new Set(trace.stages.map((s) => RULE[s.id]))];
    describe(name, () => {
      for (const rule of rules) {
        test(`${rule} cells`, () => {
          for (const s of trace.stages.filter((x) => RULE[x.id] === rule)) {
            // Every cell of the stage asked at once, of the trace the run returned (the page's way).
            const cells = [];
            for (let row = 0; row < s.shape[0]; row += 1)
              for (let col = 0; col < s.shape[1]; col += 1)
                cells.push({ stage: s.id, head: s.head, step: s.step, row, col });
            engine.explain(trace, cells).forEach((e, i) => {
              const { row, col } = cells[i];
              const where = `${name} ${s.id}/${s.head}@${s.step} (${row}, ${col})`;
              assert.ok(Object.is(e.value, at(s, row, col)), `${where}: value`);
              CHECKS[rule](trace, s, row, col, e, where);
            });
          }
          seen.add(rule);
        });
      }
    });
  }
  test('the presets and custom specs between them exercise every cell rule', () => {
    assert.deepEqual([...seen].sort(), Object.keys(CHECKS).sort());
  });
});

test('explain: a trace run() returned answers as its spec does, for the first and last cell of every stage', () => {
  for (const [name, spec] of CASES) {
    const trace = engine.run(spec);
    const cells = trace.stages.flatMap((s) =>
      [
        [0, 0],
        [s.shape[0] - 1, s.shape[1] - 1],
      ].map(([row, col]) => ({ stage: s.id, head: s.head, step: s.step, row, col })),
    );
    assert.deepStrictEqual(engine.explain(trace, cells), engine.explain(spec, cells), name);
  }
});

test('explain: of a trace, from the numbers it holds (nothing is run again); a reused one is refused', () => {
  const spec = { preset: 'lesson-multi-head' };
  const trace = engine.run(spec);
  const cell = { stage: 'scores', head: 1, row: 2, col: 3 };
  const before = engine.explain(trace, cell);
  const q = trace.stages.find((s) => s.id === 'scores' && s.head === 1).operands[0];
  q.values[2 * q.shape[1]] += 1; // Q[2][0] of the held trace
  const after = engine.explain(trace, cell);
  assert.equal(after.terms[0].a, before.terms[0].a + 1, 'the held Q is read');
  assert.deepStrictEqual(engine.explain(spec, cell), before, 'the spec runs afresh');
  engine.run(spec, { reuse: trace });
  assert.throws(() => engine.explain(trace, cell), /^Error: trace: its memory went to a later run/);
});

test('explain: a list of cells gives each cell as explaining it alone would, from one run', () => {
  const spec = { preset: 'lesson-causal' };
  const cells = [
    { stage: 'scores', head: 0, row: 1, col: 0 },
    { stage: 'masked', head: 0, row: 0, col: 2 },
    { stage: 'head', head: 0, row: 2, col: 3 },
    { stage: 'x', row: 3, col: 7 },
  ];
  assert.deepEqual(
    engine.explain(spec, cells),
    cells.map((c) => engine.explain(spec, c)),
  );
  assert.deepEqual(engine.explain(spec, []), []);
  assert.throws(
    () => engine.explain(spec, [cells[0], { ...cells[0], row: 99 }]),
    /^Error: cells\[1\]: \(99, 0\) is outside/,
  );
});

describe('explain: cross-attention by hand', () => {
  // X_q = I (2 queries), X_kv = [[1, 0], [0, 1], [1, 1]] (3 keys), W_Q = √2·ln 2 · I, W_K = I,
  // W_V = [[1, 2], [3, 4]]: scaled = ln 2 · [[1, 0, 1], [0, 1, 1]], V = [[1, 2], [3, 4], [4, 6]].
  const c = Math.SQRT2 * Math.LN2;
  const spec = (fields) => ({
    kind: 'cross',
    X_q: [
      [1, 0],
      [0, 1],
    ],
    X_kv: [
      [1, 0],
      [0, 1],
      [1, 1],
    ],
    W_Q: [
      [
        [c, 0],
        [0, c],
      ],
    ],
    W_K: [
      [
        [1, 0],
        [0, 1],
      ],
    ],
    W_V: [
      [
        [1, 2],
        [3, 4],
      ],
    ],
    ...fields,
  });
  const cell = (stage, row, col) => ({ stage, head: 0, row, col });

  test('weights (0, 0): exps [1, ½, 1] over 2.5 = 0.4', () => {
    const e = engine.explain(spec({}), cell('weights', 0, 0));
    assert.ok(Math.abs(e.softmax.max - Math.LN2) < 1e-15);
    [1, 0.5, 1].forEach((x, k) => assert.ok(Math.abs(e.softmax.exps[k] - x) < 1e-15, `exp ${k}`));
    assert.ok(Math.abs(e.softmax.expSum - 2.5) < 1e-15);
    assert.ok(Math.abs(e.value - 0.4) < 1e-15);
  });

  test('head (1, 0): 0.2·1 + 0.4·3 + 0.4·4 = 3', () => {
    const e = engine.explain(spec({}), cell('head', 1, 0));
    assert.deepEqual(
      e.terms.map((t) => t.b),
      [1, 3, 4],
    );
    [0.2, 0.4, 0.4].forEach((w, k) => assert.ok(Math.abs(e.terms[k].a - w) < 1e-15, `weight ${k}`));
    assert.ok(Math.abs(e.value - 3) < 1e-14);
  });

  test('with validKeys 2 the third key is masked: ln 2 + (−∞), weight +0', () => {
    const masked = engine.explain(spec({ validKeys: 2 }), cell('masked', 0, 2));
    assert.ok(Math.abs(masked.input - Math.LN2) < 1e-15);
    assert.equal(masked.mask, -Infinity);
    assert.equal(masked.masked, true);
    assert.equal(masked.value, -Infinity);
    const weight = engine.explain(spec({ validKeys: 2 }), cell('weights', 0, 2));
    assert.ok(Object.is(weight.value, 0));
    assert.equal(weight.masked, true);
    const kept = engine.explain(spec({ validKeys: 2 }), cell('weights', 1, 1));
    assert.ok(Math.abs(kept.value - 2 / 3) < 1e-15); // [1, 2] / 3 over the two real keys
  });
});
