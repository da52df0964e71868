// Quiz tests' helper: each value question's expected answer, checked against the engine's
// trace by a route of its own (the masked operand, the totals, the row's largest, engine.explain,
// the decode step, the causal mask's rule for tiles), and its verdicts on right and wrong text.
import assert from 'node:assert/strict';
import { formatCell } from '../../web/model/format.js';
import { checkAnswer } from '../../web/model/quiz.js';

const at = (stage, r, c) => stage.values[r * stage.shape[1] + c];
const divisorOf = (engine, spec, step) =>
  engine.explain(spec, { stage: step.id, head: step.head, step: step.step, row: 0, col: 0 }).divisor;

// Each value question's expected answer, checked against the trace by an independent route.
export function checkValueQuestion(engine, q, step, run, where) {
  const { stage } = step;
  const right = (text, facts) => assert.equal(checkAnswer(q, text, facts).status, 'right', `${where} ${q.id}: ${text}`);
  const wrong = (text, facts) => assert.equal(checkAnswer(q, text, facts).status, 'wrong', `${where} ${q.id}: ${text}`);
  if (q.id === 'masked-weight') {
    const [, r, c] = /weights\[(\d+), (\d+)\]/.exec(q.prompt).map(Number);
    assert.equal(at(stage.operands[0], r, c), -Infinity, `${where}: the mask hid that key`);
    assert.equal(at(stage, r, c), 0, `${where}: the engine's weight there`);
    right('0');
    wrong('0.25');
  } else if (q.id === 'row-sum') {
    const r = Number(/row (\d+)/.exec(q.prompt)[1]);
    // With a sink the row sums to 1 less the sink's share (its own stage).
    const sink = run.steps.find((s) => s.id === 'sink' && s.head === step.head && s.step === step.step)?.stage;
    const share = sink ? sink.values[r] : 0;
    assert.ok(Math.abs(stage.totals[r] + share - 1) < 1e-12, `${where}: the engine's total`);
    if (share < 5e-4) right('1');
    else wrong('1');
    right(formatCell(stage.totals[r]));
    if (Math.abs(stage.totals[r] - 0.5) > 5e-4) wrong('0.5');
  } else if (q.id === 'argmax') {
    const r = stage.shape[0] - 1;
    const row = Array.from({ length: stage.shape[1] }, (_, j) => at(stage, r, j));
    const best = row.indexOf(Math.max(...row));
    right(q.expected.keys[best].toUpperCase());
    right(String(best));
    const worst = row.indexOf(Math.min(...row));
    const label = q.expected.keys[worst]; // a number label (the model's ids) also reads as that column
    if (row[worst] < row[best] && label !== q.expected.keys[best] && label !== String(best)) wrong(label);
  } else if (q.id === 'divisor') {
    // The width of q·kᵀ: d_k, and MLA's d_r RoPE columns beside it (DeepSeek-V2 §2.1.3).
    const { dK, dRope = 0 } = run.trace.config;
    const [width, root] = dRope > 0 ? ['d_k + d_r', dK + dRope] : ['d_k', dK];
    const facts = { divisor: divisorOf(engine, run.spec, step) };
    right(String(facts.divisor), facts);
    right(`\u221a${root}`, facts);
    if (root !== 1) wrong(String(root), facts); // √1 is 1 itself
    const itself = checkAnswer(q, String(root), facts).text;
    assert.ok(itself.includes(`not by ${width} itself`), `${where}: ${itself}`);
    assert.ok(itself.includes(`That is ${width} itself.`), `${where}: ${itself}`);
  } else if (q.id === 'cache-rows') {
    // Tokens 0 … t, or at most W once a window's cache is full.
    const { window } = run.trace.config;
    const held = window === null ? stage.step + 1 : Math.min(stage.step + 1, window);
    right(String(held));
    wrong(String(held - 1));
  } else if (q.id === 'next-tile') {
    // The causal mask skips a tile whose first key comes after its block's last query.
    const next = /keys? (\d+)/.exec(q.prompt).map(Number)[1];
    const skipped = run.trace.config.causal && next > stage.tile.queryRows[1] - 1;
    right(skipped ? 'skipped' : 'computed');
    wrong(skipped ? 'Computed' : 'skip');
  } else if (q.id === 'next-token') {
    // Read back from the row the prompt names: the id of its largest probability.
    const r = Number(/After position (\d+)/.exec(q.prompt)[1]);
    const row = Array.from({ length: stage.shape[1] }, (_, j) => at(stage, r, j));
    const best = row.indexOf(Math.max(...row));
    for (let k = 0; k < stage.shape[0]; k++)
      assert.ok(
        Math.max(...Array.from({ length: stage.shape[1] }, (_, j) => at(stage, k, j))) <= row[best],
        `${where}: row ${r} is the most confident`,
      );
    right(String(best));
    wrong(String(row.indexOf(Math.min(...row))));
  } else if (q.id === 'token-loss') {
    // −ln of the next token's probability, as engine.explain takes the cell apart.
    const r = Number(/At position (\d+)/.exec(q.prompt)[1]);
    const e = engine.explain(run.spec, { stage: 'token_loss', row: r, col: 0 });
    assert.equal(e.value, -Math.log(e.input), `${where}: −ln p`);
    right(formatCell(e.value));
    wrong(formatCell(e.value / 2));
  } else {
    assert.fail(`${where}: no test for question ${q.id}`);
  }
}
