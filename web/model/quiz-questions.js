// The value questions a stage entry may ask after its shape (entry.quiz), each (step, ctx) → a
// question (see model/quiz.js), or null when the step has nothing to ask; ctx: { trace, tokens,
// caption(operand) }.
// Every expected answer is read from the engine's trace (the stage's values, row totals,
// operands, the tiles it recorded); the only work here is picking the largest of a row. Pure.

import { formatCell, rowsText } from './format.js';

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

/** Row r of a stage's (or an operand's) matrix, as an array. */
export function rowOf(stage, r) {
  const cols = stage.shape[1];
  return Array.from(stage.values.slice(r * cols, (r + 1) * cols));
}

// scaled: the number every score is divided by. The equation says √d_k; the engine's explain
// gives its value (facts.divisor), so the page never takes a square root itself.
export function divisorQuestion(step) {
  const m = /\u00f7 \u221a(\d+)/.exec(step.stage.equation);
  if (!m) return null; // the ablation divides by 1: nothing to predict
  // MLA's q and k carry d_r RoPE columns beside d_k: the engine's equation names the sum.
  const width = step.stage.symbolic?.includes('d_r') ? 'd_k + d_r' : 'd_k';
  return {
    id: 'divisor',
    kind: 'divisor',
    prompt: `Every score is divided by \u221a${width === 'd_k' ? 'd_k' : `(${width})`}. By which number, here?`,
    help: 'A number, for example 3 (or \u221a9).',
    expected: { root: Number(m[1]), width },
    answer: `\u221a${m[1]}`,
    hint:
      `${width} = ${m[1]} is the length of each query and key; the ` +
      `scores are divided by its square root, not by ${width} itself.`,
    why:
      'if the components of q and k are independent, with mean 0 and variance 1, dividing by \u221ad_k brings ' +
      'the scores\u2019 variance back to about 1; the stage\u2019s text says whether that premise holds here.',
  };
}

// weights: a cell the mask hid (−∞ in the logits the softmax read).
export function maskedWeightQuestion(step, ctx) {
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
export function rowSumQuestion(step, ctx) {
  const { stage } = step;
  if (!stage.totals) return null;
  const r = Math.floor((stage.shape[0] - 1) / 2);
  const label = labelsOf(ctx.tokens, stage, stage.axes[0], stage.shape[0])[r];
  // A model's probabilities: rows are positions, columns the vocabulary's tokens.
  const tokens = stage.id === 'probabilities';
  return {
    id: 'row-sum',
    kind: 'number',
    prompt: tokens
      ? `What do the probabilities in row ${r} (position of \u201c${label}\u201d) add up to?`
      : `What do the weights in row ${r} (query \u201c${label}\u201d) add up to?`,
    help: 'A number, for example 0.5.',
    expected: { value: stage.totals[r] },
    answer: formatCell(stage.totals[r]),
    hint: 'The softmax divides each exponential by the sum of all the exponentials in its row.',
    why: tokens
      ? 'every row is a probability distribution over the next token.'
      : ctx.trace?.config.sinks
        ? 'the sum in the softmax\u2019s denominator also holds the sink\u2019s e^(\u03b6 \u2212 \u03bc): the ' +
          'weights add up to 1 less the share the sink takes.'
        : 'every row of weights is a probability distribution over the keys.',
  };
}

// weights: the key that gets the most weight in the last row (ties: any of them).
export function argmaxQuestion(step, ctx) {
  const { stage } = step;
  const [rows, cols] = stage.shape;
  if (cols < 2) return null;
  const r = rows - 1;
  const row = rowOf(stage, r);
  const top = Math.max(...row);
  const columns = row.flatMap((v, j) => (v === top ? [j] : []));
  const keys = labelsOf(ctx.tokens, stage, stage.axes[1], cols);
  const query = labelsOf(ctx.tokens, stage, stage.axes[0], rows)[r];
  const logits = stage.operands[0] ? ctx.caption(stage.operands[0]) : 'the logits';
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
export function cacheRowsQuestion(step, ctx) {
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
    ...(ctx.trace.config.window === null
      ? {
          hint:
            'The cache keeps one key for every token so far: each earlier token\u2019s, ' +
            `and now \u201c${token}\u201d\u2019s.`,
          why: 'keys never change once computed, so each step appends just one row.',
        }
      : {
          hint:
            `The cache keeps W = ${ctx.trace.config.window} keys at most: once it is full, the new ` +
            `key of \u201c${token}\u201d takes the slot of the oldest` +
            `${ctx.trace.config.sinkTokens ? ' outside the sink tokens' : ''}.`,
          why:
            'keys never change once computed: each step appends one row until the window is full, ' +
            'then overwrites the oldest.',
        }),
  };
}

// tile_scores: is the next tile along this row of tiles computed, or skipped by the causal mask?
// Read from the tiles the engine recorded: a skipped tile is one it did not record.
export function nextTileQuestion(step, ctx) {
  const { queryRows, keyRows } = step.stage.tile ?? {};
  if (!queryRows) return null;
  const tiles = ctx.trace.stages.filter((s) => s.id === 'tile_scores').map((s) => s.tile);
  const next = tiles.find((t) => t.keyRows[0] === keyRows[1])?.keyRows;
  if (!next) return null; // the last key block of the row
  const computed = tiles.some((t) => t.queryRows[0] === queryRows[0] && t.keyRows[0] === next[0]);
  const causal = step.stage.terms.includes('causal'); // the engine's: the tile was masked causally
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

// probabilities: the token the model finds likeliest after its most confident position (the row
// whose largest probability is the largest; ties: any of those tokens).
export function nextTokenQuestion(step, ctx) {
  const { stage } = step;
  const [rows, cols] = stage.shape;
  const tops = Array.from({ length: rows }, (_, r) => Math.max(...rowOf(stage, r)));
  const r = tops.indexOf(Math.max(...tops));
  const row = rowOf(stage, r);
  const columns = row.flatMap((v, j) => (v === tops[r] ? [j] : []));
  const token = labelsOf(ctx.tokens, stage, stage.axes[0], rows)[r];
  return {
    id: 'next-token',
    kind: 'key',
    prompt: `After position ${r} (token ${token}), which token does the model find likeliest to come next?`,
    help: `Type its id, from 0 to ${cols - 1}.`,
    expected: { columns, keys: Array.from({ length: cols }, (_, j) => String(j)) },
    answer: `token ${columns[0]} (p = ${formatCell(tops[r])})`,
    hint:
      `Find the largest number in row ${r}: the softmax keeps the order of the logits, so it is also ` +
      `row ${r}\u2019s largest logit.`,
    why: 'the softmax never changes which logit is largest.',
  };
}

// token_loss: a position's loss from the probability the model gave the token that came next:
// the scored position (the loss stage's counted) it predicts worst, where the answer is least obvious.
export function tokenLossQuestion(step, ctx) {
  const { stage } = step;
  const [probabilities, next] = stage.operands;
  const counted = ctx.trace.stages.find((s) => s.id === 'loss').operands[1].values;
  const scored = Array.from(stage.values, (v, t) => (counted[t] ? v : -Infinity));
  const r = scored.indexOf(Math.max(...scored));
  const p = probabilities.values[r * probabilities.shape[1] + next.values[r]];
  return {
    id: 'token-loss',
    kind: 'number',
    prompt:
      `At position ${r} the model gave the token that came next (${next.values[r]}) probability ` +
      `${formatCell(p)}. What is the loss there?`,
    help: 'A number, for example 0.7.',
    expected: { value: stage.values[r] },
    answer: formatCell(stage.values[r]),
    hint: `The loss is \u2212ln p: \u2212ln ${formatCell(p)}.`,
    why: 'a token given probability p costs \u2212ln p: 0 when p = 1, ln V when every token is equally likely.',
  };
}
