// "Predict, then reveal": the questions a stage asks before its result is shown, and the verdict
// on a typed answer. Every expected answer is read from the engine's trace (the stage's shape,
// values, row totals, operands, the tiles it recorded), never written by hand; the only work
// here is comparing numbers within a tolerance and picking the largest of a row. Pure.
//
// A question: { id, kind: 'shape' | 'number' | 'count' | 'divisor' | 'key' | 'choice', prompt,
//   help (how to type it), expected (kind's own), answer (text of the right answer), hint,
//   why (said when right) }.

import { formatCell, rowsText } from './format.js';
import { shapeHint } from './quiz-hints.js';
import { formatShape, near, parseChoice, parseNumber, parseRoot, parseShape } from './quiz-parse.js';
import { operandLabel, stageById } from './stage-table.js';

// Values are shown with three decimals: an answer read off (or rounded like) them is right.
const TOLERANCE = 0.0005;
const TILE_CHOICES = [
  { value: 'computed', words: ['computed', 'compute', 'computes', 'calculated', 'yes', 'y', 'c'] },
  { value: 'skipped', words: ['skipped', 'skip', 'skips', 'no', 'n', 's'] },
];

// The labels along one axis of a stage: tokens where the configuration names them (a decode
// step's row is token t, its keys tokens 0 … t), else the positions.
function labelsOf(tokens, stage, axis, n) {
  const all = tokens.T ?? [];
  const byAxis = { ...tokens, 1: [all[stage.step]], 't+1': all.slice(0, (stage.step ?? 0) + 1) };
  const labels = byAxis[axis];
  return labels?.length === n ? labels : Array.from({ length: n }, (_, i) => String(i));
}

function rowOf(stage, r) {
  const cols = stage.shape[1];
  return Array.from(stage.values.slice(r * cols, (r + 1) * cols));
}

function shapeQuestion(step, entry, ctx) {
  const symbolic = step.stage.symbolic.split('\u2192').pop().trim();
  return {
    id: 'shape',
    kind: 'shape',
    prompt: `What shape will ${entry.result} have?`,
    help: 'Rows, then columns: for example 5, 4 or (5, 4) or 5x4.',
    expected: step.stage.shape,
    answer: formatShape(step.stage.shape),
    hint: shapeHint(step.stage, entry, ctx.trace.config),
    why: `that is ${symbolic}.`,
  };
}

// scaled: the number every score is divided by. The equation says √d_k; the engine's explain
// gives its value (facts.divisor), so the page never takes a square root itself.
function divisorQuestion(step) {
  const m = /\u00f7 \u221a(\d+)/.exec(step.stage.equation);
  if (!m) return null; // the ablation divides by 1: nothing to predict
  return {
    id: 'divisor',
    kind: 'divisor',
    prompt: 'Every score is divided by \u221ad_k. By which number, here?',
    help: 'A number, for example 3 (or \u221a9).',
    expected: { root: Number(m[1]) },
    answer: `\u221a${m[1]}`,
    hint:
      `d_k = ${m[1]} is the length of each query and key; the ` +
      `scores are divided by its square root, not by d_k itself.`,
    why: 'dividing by \u221ad_k brings the scores\u2019 variance back to about 1.',
  };
}

// weights: a cell the mask hid (−∞ in the logits the softmax read).
function maskedWeightQuestion(step, ctx) {
  const logits = step.stage.operands[0];
  const at = logits?.name === 'masked' ? Array.from(logits.values).indexOf(-Infinity) : -1;
  if (at < 0) return null;
  const { stage } = step;
  const [rows, cols] = stage.shape;
  const [r, c] = [Math.floor(at / cols), at % cols];
  const query = labelsOf(ctx.tokens, stage, stage.axes[0], rows)[r];
  const key = labelsOf(ctx.tokens, stage, stage.axes[1], cols)[c];
  return {
    id: 'masked-weight',
    kind: 'number',
    prompt: `The mask hid key \u201c${key}\u201d from query \u201c${query}\u201d. What is weights[${r}, ${c}]?`,
    help: 'A number, for example 0.25.',
    expected: { value: stage.values[at] },
    answer: formatCell(stage.values[at]),
    hint: `Look at L[${r}, ${c}]: it is ${formatCell(logits.values[at])}. What is e raised to that?`,
    why: 'a masked key gets no weight at all.',
  };
}

// weights: what one row adds up to (the engine's own row total).
function rowSumQuestion(step, ctx) {
  const { stage } = step;
  if (!stage.totals) return null;
  const r = Math.floor((stage.shape[0] - 1) / 2);
  const query = labelsOf(ctx.tokens, stage, stage.axes[0], stage.shape[0])[r];
  return {
    id: 'row-sum',
    kind: 'number',
    prompt: `What do the weights in row ${r} (query \u201c${query}\u201d) add up to?`,
    help: 'A number, for example 0.5.',
    expected: { value: stage.totals[r] },
    answer: formatCell(stage.totals[r]),
    hint: 'The softmax divides each exponential by the sum of all the exponentials in its row.',
    why: 'every row of weights is a probability distribution over the keys.',
  };
}

// weights: the key that gets the most weight in the last row (ties: any of them).
function argmaxQuestion(step, ctx) {
  const { stage } = step;
  const [rows, cols] = stage.shape;
  if (cols < 2) return null;
  const r = rows - 1;
  const row = rowOf(stage, r);
  const top = Math.max(...row);
  const columns = row.flatMap((v, j) => (v === top ? [j] : []));
  const keys = labelsOf(ctx.tokens, stage, stage.axes[1], cols);
  const query = labelsOf(ctx.tokens, stage, stage.axes[0], rows)[r];
  const logits = stage.operands[0] ? operandLabel(stage.operands[0]) : 'the logits';
  return {
    id: 'argmax',
    kind: 'key',
    prompt: `In row ${r} (query \u201c${query}\u201d), which key gets the most weight?`,
    help:
      keys.length <= 8
        ? `Type its token (${keys.join(', ')}) or its column number, from 0.`
        : 'Type its token or its column number, from 0.',
    expected: { columns, keys },
    answer: `\u201c${keys[columns[0]]}\u201d (column ${columns[0]})`,
    hint: `The softmax keeps the order of its inputs: find the largest number in row ${r} of ${logits}.`,
    why: 'the largest logit always gets the largest weight.',
  };
}

// k_new: how many rows the key cache will hold once this key is appended (the trace's k_cache
// of the same decode step and K/V head).
function cacheRowsQuestion(step, ctx) {
  const { stage } = step;
  const cache = ctx.trace.stages.find((s) => s.id === 'k_cache' && s.step === stage.step && s.kvHead === stage.kvHead);
  if (!cache) return null;
  const token = labelsOf(ctx.tokens, stage, '1', 1)[0];
  return {
    id: 'cache-rows',
    kind: 'count',
    prompt: `Once k_t is appended, how many rows will the key cache hold at step t = ${stage.step}?`,
    help: 'A whole number, for example 3.',
    expected: { value: cache.shape[0] },
    answer: String(cache.shape[0]),
    hint:
      `The cache keeps one key for every token so far: each ` +
      `earlier token\u2019s, and now \u201c${token}\u201d\u2019s.`,
    why: 'keys never change once computed, so each step appends just one row.',
  };
}

// tile_scores: is the next tile along this row of tiles computed, or skipped by the causal mask?
// Read from the tiles the engine recorded: a skipped tile is one it did not record.
function nextTileQuestion(step, ctx) {
  const { queryRows, keyRows } = step.stage.tile ?? {};
  if (!queryRows) return null;
  const tiles = ctx.trace.stages.filter((s) => s.id === 'tile_scores').map((s) => s.tile);
  const next = tiles.find((t) => t.keyRows[0] === keyRows[1])?.keyRows;
  if (!next) return null; // the last key block of the row
  const computed = tiles.some((t) => t.queryRows[0] === queryRows[0] && t.keyRows[0] === next[0]);
  const causal = ctx.trace.config.causal;
  return {
    id: 'next-tile',
    kind: 'choice',
    prompt:
      `Next along this row of tiles: ${rowsText('key', next)} for the same ` +
      `${rowsText('query', queryRows)}. Will that tile be computed or skipped?`,
    help: 'Type computed or skipped.',
    expected: { choice: computed ? 'computed' : 'skipped', choices: TILE_CHOICES },
    answer: computed ? 'computed' : 'skipped',
    hint: causal
      ? `Under the causal mask a query sees only keys at or before its own position: compare this ` +
        `block\u2019s last query, ${queryRows[1] - 1}, with that tile\u2019s first key, ${next[0]}.`
      : 'Without a mask every query sees every key.',
    why: computed
      ? 'some query of the block may see some key of that tile.'
      : 'every key of that tile comes after every query of the block: the mask would zero it all.',
  };
}

const VALUE_QUESTIONS = {
  scaled: [divisorQuestion],
  weights: [maskedWeightQuestion, rowSumQuestion, argmaxQuestion],
  k_new: [cacheRowsQuestion],
  tile_scores: [nextTileQuestion],
};

/** The questions of steps[index], shape first. ctx: { trace, tokens: { [axis]: labels } }. */
export function quizQuestions(steps, index, ctx) {
  const step = steps[index];
  const entry = step && stageById(step.id);
  if (!entry) return [];
  const values = (VALUE_QUESTIONS[step.id] ?? []).map((make) => make(step, ctx)).filter(Boolean);
  return [shapeQuestion(step, entry, ctx), ...values];
}

// Each kind's reader and judge: → { read: false } | { read: true, right, hint? }.
const CHECKS = {
  shape(q, text) {
    const got = parseShape(text);
    if (!got) return { read: false };
    const [rows, cols] = q.expected;
    const swapped = got[0] === cols && got[1] === rows;
    return {
      read: true,
      right: got[0] === rows && got[1] === cols,
      hint: swapped ? `Rows come first. ${q.hint}` : q.hint,
    };
  },
  number(q, text) {
    const got = parseNumber(text);
    return got === null ? { read: false } : { read: true, right: near(got, q.expected.value, TOLERANCE) };
  },
  count(q, text) {
    const got = parseNumber(text);
    return got === null ? { read: false } : { read: true, right: got === q.expected.value };
  },
  divisor(q, text, facts) {
    const root = parseRoot(text);
    if (root !== null) return { read: true, right: root === q.expected.root };
    const got = parseNumber(text);
    if (got === null) return { read: false };
    const right = facts.divisor !== undefined && near(got, facts.divisor, TOLERANCE);
    return { read: true, right, hint: got === q.expected.root ? `That is d_k itself. ${q.hint}` : q.hint };
  },
  key(q, text) {
    const t = String(text ?? '')
      .trim()
      .replace(/^["“'‘]|["”'’]$/g, '')
      .toLowerCase();
    if (!t) return { read: false };
    const byLabel = q.expected.keys.flatMap((k, j) => (k.toLowerCase() === t ? [j] : []));
    const columns = byLabel.length ? byLabel : /^\d+$/.test(t) && Number(t) < q.expected.keys.length ? [Number(t)] : [];
    if (!columns.length) return { read: false };
    return { read: true, right: columns.some((j) => q.expected.columns.includes(j)) };
  },
  choice(q, text) {
    const got = parseChoice(text, q.expected.choices);
    return got === null ? { read: false } : { read: true, right: got === q.expected.choice };
  },
};

/**
 * A typed answer → { status: 'right' | 'wrong' | 'unreadable', text }. facts: what the engine
 * adds beyond the trace ({ divisor } from engine.explain for the scaled stage).
 */
export function checkAnswer(question, text, facts = {}) {
  const result = CHECKS[question.kind](question, text, facts);
  if (!result.read) return { status: 'unreadable', text: `I could not read that. ${question.help}` };
  if (result.right) return { status: 'right', text: `Right: ${question.answer}; ${question.why}` };
  return { status: 'wrong', text: `Not quite. ${result.hint ?? question.hint}` };
}

export const NO_RECORD = { answers: {}, last: null, shown: false };

/**
 * The quiz card for one step: the questions settled so far, the one to answer (null once the
 * result is revealed) and the latest feedback. record: { answers: { [id]: { tries, right } },
 * last: { status, text } | null, shown }; key names the step (a new key clears the field).
 */
export function quizCard(questions, record, key) {
  const current = record.shown ? null : (questions.find((q) => !record.answers[q.id]?.right) ?? null);
  const settled = current ? questions.slice(0, questions.indexOf(current)) : questions;
  const statusOf = (a) => (!a?.right ? 'shown' : a.tries === 1 ? 'right first time' : 'right');
  return {
    revealed: !current,
    done: settled.map((q) => ({
      id: q.id,
      prompt: q.prompt,
      answer: q.answer,
      status: statusOf(record.answers[q.id]),
    })),
    current: current && {
      key: `${key}:${current.id}`,
      id: current.id,
      prompt: current.prompt,
      help: current.help,
      position: `Question ${questions.indexOf(current) + 1} of ${questions.length}`,
    },
    feedback: record.last,
  };
}

/**
 * The feedback after an answer → { status, text, next }: next repeats the new question for
 * screen readers (the field's label changes silently; sighted readers see it in the form).
 */
export function feedbackAfter(verdict, card) {
  if (verdict.status !== 'right') return { ...verdict, next: null };
  if (!card.current) return { ...verdict, text: `${verdict.text} The result is shown.`, next: null };
  return { ...verdict, next: `Next: ${card.current.prompt}` };
}

export function scoreText({ answered, rightFirst }) {
  return `Score: ${answered} answered, ${rightFirst} right first time`;
}
