// The Notation panel: under each formula, exactly the symbols that formula writes, each from the
// one table (web/model/notation.js) with its one meaning and, for a matrix, the trace's shape.
// Every formula of every recorded trace is read here; tests/wasm/combinations.test.mjs reads those
// of every feature pair.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSteps } from '../../web/model/navigation.js';
import { SYMBOLS, notationView, symbolsOf } from '../../web/model/notation.js';
import { stageById } from '../../web/model/stage-table.js';
import { SPECS, traceOf } from './fixtures.mjs';

const names = (tex) => symbolsOf(tex).symbols.map((s) => s.symbol);

test('notation: a formula\u2019s symbols are read from its TeX, each letter for itself', () => {
  assert.deepEqual(names('dQ_{n} = dS_{n}\\, K'), ['d', 'Q', 'n', 'S', 'K']);
  assert.deepEqual(names('\\tilde S = \\frac{S}{\\sqrt{d_k}}'), ['S\u0303', 'S', 'd_k']);
  assert.deepEqual(names('X \\in \\mathbb{R}^{T \\times d_{\\text{model}}}'), ['X', '\u211d', 'T', 'd_model']);
  assert.deepEqual(names('Y^{+} = \\max(0, Y)'), ['Y\u207a', 'Y']);
  assert.deepEqual(names("\\sum_{j'} e^{L_{ij'} - \\mu_i}"), ["j'", 'e', 'L', 'i', '\u03bc']);
  // Prose and operator names are words, not symbols; an unlisted letter is reported.
  assert.deepEqual(symbolsOf('\\operatorname{softmax}(x) \\text{ where it is seen}').unknown, []);
  assert.deepEqual(symbolsOf('S_{rc} = \\kappa').unknown, ['r']);
});

test('notation: one row a symbol, one symbol a TeX form, one meaning a row', () => {
  const forms = SYMBOLS.flatMap((s) => s.tex);
  assert.equal(new Set(forms).size, forms.length, 'a TeX form in two rows');
  for (const key of ['symbol', 'meaning']) {
    const values = SYMBOLS.map((s) => s[key]);
    assert.equal(new Set(values).size, values.length, `two rows with one ${key}`);
  }
  for (const s of SYMBOLS) if (s.stage) assert.ok(stageById(s.stage), `${s.symbol}: no stage ${s.stage}`);
});

const EVERY_FORMULA =
  'notation: every formula of every recorded trace writes only symbols of the table, and the panel lists exactly them';
test(EVERY_FORMULA, () => {
  let formulas = 0;
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const steps = buildSteps(trace);
    for (const step of steps) {
      const tex = stageById(step.id).formula(trace.config, step.stage);
      const where = `${JSON.stringify(spec)} ${step.id}: ${tex}`;
      const { symbols, unknown } = symbolsOf(tex);
      assert.deepEqual(unknown, [], `${where}: letters no row names`);
      const { table } = notationView(tex, steps, step.head);
      assert.deepEqual(
        table.rows.map((r) => r[0]),
        symbols.map((s) => s.symbol),
        where,
      );
      // A matrix's shape is its stage's in this trace.
      for (const [symbol, , shape] of table.rows) {
        const row = SYMBOLS.find((s) => s.symbol === symbol);
        const stage = row.stage && steps.find((s) => s.id === row.stage)?.stage;
        assert.equal(shape, stage ? `(${stage.axes.join(', ')})` : '', `${where}: ${symbol}'s shape`);
      }
      formulas++;
    }
  }
  assert.ok(formulas > 1000, `${formulas} formulas`);
  const { note } = notationView('X', []);
  assert.match(note, /number head_1 \u2026 head_h are heads 0 \u2026 h \u2212 1, the first token is position 0/);
});

// The formulas of one stage of a preset, and the symbols its panel lists.
function listed(preset, id) {
  const trace = traceOf({ preset });
  const steps = buildSteps(trace);
  const step = steps.find((s) => s.id === id);
  return notationView(stageById(id).formula(trace.config, step.stage), steps, step.head).table.rows.map((r) => r[0]);
}

// TRN-6, TRN-7: the trained model's own symbols: N counts the layers (L is the logits the softmax
// reads), u indexes the vocabulary (V is the values, v a value row), y the token ids, R the
// residual stream (x_t is a decode step's row of X), w_t the scored positions (c is RoPE's pair).
test('notation: the trained model\u2019s symbols, none of them reused', () => {
  assert.deepEqual(listed('trained-induction', 'embedded'), ['R_l', 'W_E', 'tokens', 'W_P']);
  assert.deepEqual(listed('trained-induction', 'logits'), ['z', 'R_l', 'N', 'W_U']);
  assert.deepEqual(listed('trained-induction', 'probabilities'), ['p', 't', 'u', 'e', 'z', '\u03bc']);
  assert.deepEqual(listed('trained-induction', 'loss'), ['\u2112', 't', 'w_t', '\u2113_t']);
  const trace = traceOf({ preset: 'trained-induction' });
  for (const id of ['logits', 'token_loss']) {
    const [entry, stage] = [stageById(id), trace.stages.find((s) => s.id === id)];
    const texts = [entry.formula(trace.config, stage), entry.explain.symbolic(1, 2, trace.config, stage)];
    for (const text of texts) assert.doesNotMatch(text, /x_L|x_N|x_\{\S*\+1\}(?!\s*=)/, `${id}: ${text}`);
  }
  assert.match(stageById('token_loss').formula(trace.config), /p_\{t,\\,y_\{t\+1\}\}/);
});

// POS-8: one letter, one meaning. A RoPE or PE pair is c (i stays a query), a row t at position
// t₀ + t, the rotated width d_rot and PE's d_model written out, a product's summed feature a (d
// names sizes and gradients), the softmax's row max μ (m_n is ALiBi's slope), and each formula's
// panel names its positions' and masks' symbols.
test('POS-8: pair index c, row t, μ for the row max, m_n for the slope, each in the panel of its formula', () => {
  const seen = { rope: 0, pe: 0, alibi: 0 };
  for (const spec of SPECS) {
    const trace = traceOf(spec);
    const { config } = trace;
    for (const stage of trace.stages) {
      const entry = stageById(stage.id);
      const texts = [entry.formula(config, stage), entry.explain?.symbolic?.(1, 2, config, stage) ?? ''];
      const where = `${JSON.stringify(spec)} ${stage.id}`;
      for (const text of texts) {
        assert.doesNotMatch(text, /\\theta_i|\\varphi_\{p,|2i\b|\\sum_d\b|\(o \+ p\)/, `${where}: ${text}`);
        if (stage.id === 'weights' || stage.id === 'probabilities') assert.doesNotMatch(text, /\bm_/, where);
      }
      const panel = names(texts[0]);
      if (stage.id === 'q_rot') {
        seen.rope += /\\theta_c = \\text\{base\}\^\{-2c\/d_\{\\text\{rot\}\}\}/.test(texts[0]);
        for (const s of ['c', 't', 't\u2080', '\u03b8_c', '\u03c6_t,c', 'd_rot']) assert.ok(panel.includes(s), s);
      }
      if (stage.id === 'x_pos') seen.pe += /10000\^\{2c\/d_\{\\text\{model\}\}\}/.test(texts[0]);
      if (stage.id === 'biased') {
        seen.alibi += /m_n/.test(texts[0]);
        assert.ok(panel.includes('m\u2099') && panel.includes('B'), `${where}: ${panel}`);
      }
      if (stage.id === 'masked') {
        assert.equal(panel.includes('W'), stage.terms.includes('window'), `${where}: W`);
        assert.equal(panel.includes('P'), stage.terms.includes('prefix'), `${where}: P`);
      }
      if (stage.id === 'weights') assert.ok(panel.includes('\u03bc'), `${where}: μ, the row max`);
    }
  }
  assert.ok(seen.rope > 0 && seen.pe > 0 && seen.alibi > 0, JSON.stringify(seen));
});
