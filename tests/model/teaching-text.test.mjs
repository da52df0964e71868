// What the panels, the calculator, the chapters and the page say, checked against the engine's
// numbers and the papers' figures (review 2026-12-01): over the recorded traces and catalog, no build.
// A number computed from the engine's values is checked as the page writes it; a regex is left only
// where the words carry a fact (a paper's figure or finding, a citation, what a chapter names).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHAPTERS, chapterById } from '../../web/model/chapters.js';
import { buildSteps } from '../../web/model/navigation.js';
import { calculatorRows, calculatorView, DEFAULT_CALCULATOR, sizeQueries } from '../../web/model/kv-calculator.js';
import { panelView } from '../../web/model/panels.js';
import { pruningView } from '../../web/model/pruning.js';
import { validateForm } from '../../web/model/validate.js';
import { modelForm } from '../../web/state/form.js';
import { catalog, runOf, traceOf } from './fixtures.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const quotes = (text, part) => assert.ok(text.includes(part), `${JSON.stringify(part)} not in: ${text}`);

// The GQA chapter's panel at the gqa-4-2 preset, head 0, no model loaded.
const gqaPanel = () =>
  panelView({
    chapterId: 'gqa',
    config: traceOf({ preset: 'gqa-4-2' }).config,
    head: 0,
    models: catalog.models,
    loadedModel: null,
  });

test('flash: the floats row counts one tile and its block\u2019s \u03bc and Z, as the engine does', () => {
  for (const preset of ['flash-causal', 'flash-full']) {
    const { config } = traceOf({ preset });
    const { blockRows: br, blockCols: bc } = config;
    assert.equal(config.floats.tiled, br * bc + 2 * br, `${preset}: the engine's count`);
    assert.equal(config.floats.exampleTiled, config.floats.tiled, `${preset}: the same at any T`);
    const p = panelView({ chapterId: 'flash', config, steps: buildSteps(traceOf({ preset })), index: 0 });
    assert.equal(p.floats.rows[1][0], `one ${br} \u00d7 ${bc} tile, \u03bc and Z for its ${br} rows`);
    assert.equal(p.floats.rows[1][1], String(br * bc + 2 * br));
  }
});

test('models: GPT-2 small is GPT-2 (124M), with a footnote for the lesson\u2019s 117M', () => {
  const gpt2 = catalog.models[0];
  assert.deepEqual([gpt2.id, gpt2.name, gpt2.numLayers, gpt2.dModel], ['gpt2-124m', 'GPT-2 (124M)', 12, 768]);
  assert.ok(!catalog.models.some((m) => /117/.test(m.name + m.id)));
  const p = gqaPanel();
  quotes(p.footnote, `${gpt2.name} is the GPT-2 (117M) of many tables`);
});

test('KV calculator: each model is sized at most at its context window, and says so', () => {
  const calc = { ...DEFAULT_CALCULATOR, context: '8192' };
  const rows = calculatorRows(catalog, calc, null);
  const sized = rows.map((row) => {
    const q = sizeQueries(row, calc);
    // The engine's product (kv_size.cpp), by hand: tokens · 2 · d_head · K/V heads · layers · bytes,
    // or under MLA tokens · (d_c + d_r) · layers · bytes.
    const width = (x) => x.latentDims ?? 2 * x.dHead * x.numKvHeads;
    const bytes = (x) => x.seqLen * width(x) * x.numLayers * x.bytesPerValue * x.batch;
    return { row, q, perToken: bytes(q.perToken), total: bytes(q.total), mha: bytes(q.mha) };
  });
  const context = Object.fromEntries(sized.map(({ row, q }) => [row.id, q.total.seqLen]));
  for (const m of catalog.models) assert.equal(context[m.id], Math.min(8192, m.contextLength), m.id);
  assert.deepEqual([context['gpt2-124m'], context['gpt3-175b'], context['llama3-8b']], [1024, 2048, 8192]);
  assert.equal(context.custom, 8192, 'the custom row takes the context as typed');
  const view = calculatorView(calc, sized);
  const gpt2 = view.rows.find((r) => r.id === 'gpt2-124m');
  assert.equal(gpt2.cells[2], '36.00 MiB at 1,024 tokens, its context window (not 8,192)');
  assert.ok(gpt2.capped);
  const gpt3 = view.rows.find((r) => r.id === 'gpt3-175b');
  assert.equal(gpt3.cells[2], '9.00 GiB at 2,048 tokens, its context window (not 8,192)');
  const llama = view.rows.find((r) => r.id === 'llama3-8b');
  assert.equal(llama.cells[2], '1.00 GiB');
  assert.ok(!llama.capped);
  // DeepSeek-V3: 576 values per token and layer (d_c 512 + d_r 64) against MHA's 2 · 128 · 128.
  const v3 = view.rows.find((r) => r.id === 'deepseek-v3');
  assert.deepEqual(v3.cells, ['none: 1 latent for 128', '68.63 KiB', '549.00 MiB', '30.50 GiB', '56.9\u00d7 too big']);
  const within = calculatorView({ ...calc, context: '512' }, sized);
  assert.ok(!within.rows.some((r) => r.capped), 'nothing to flag within every window');
});

// The loaded model's config, as the page runs it (recorded by record-traces.mjs).
function loaded(id) {
  const model = catalog.models.find((m) => m.id === id);
  return { model, config: runOf(validateForm(catalog, modelForm(catalog, model)).spec).config };
}

test('GQA panel: the scaling note reads right for a model with one query head per K/V head', () => {
  for (const id of ['gpt2-1.5b', 'gpt3-175b', 'llama3-8b', 'gpt2-124m']) {
    const { model, config } = loaded(id);
    const p = panelView({ chapterId: 'gqa', config, head: 0, models: catalog.models, loadedModel: model });
    const group = model.numHeads / model.numKvHeads;
    assert.equal(config.numHeads / config.numKvHeads, group, `${id}: the shown heads keep the model's groups`);
    assert.doesNotMatch(p.note, /\b1 query heads/, id);
    const kept =
      group === 1 ? 'every query head still has its own K/V head' : `the same ${group} query heads per K/V head`;
    const same = config.numHeads === model.numHeads;
    quotes(
      p.note,
      same
        ? 'Shown: the same heads'
        : `Shown: ${config.numHeads} query heads and ${config.numKvHeads} K/V heads (${kept})`,
    );
  }
});

test('GQA panel: GQA\u2019s quality cost, with its source (Ainslie et al. 2023)', () => {
  const p = gqaPanel();
  assert.match(p.quality, /Ainslie et al\. \(2023\)/);
  assert.match(p.quality, /not free/);
});

test('pruning note: the papers\u2019 figures, and 50\u201390 % is not a BERT result', () => {
  const view = pruningView({ numHeads: 4 }, { view: { pruning: true } }, [
    { head: 0, change: 0.5 },
    { head: 1, change: 0.25 },
  ]);
  const note = view.note;
  assert.match(note, /50\u201390 %/);
  assert.match(note, /Michel et al\. \(2019\)/);
  assert.match(note, /about 20 % of a WMT English\u2013French Transformer\u2019s heads and about 40 % of BERT\u2019s/);
  assert.match(note, /encoder\u2013decoder attention was the most sensitive/);
  quotes(note, `Voita et al. (2019) removed 38 of the 48 encoder heads (${Math.round((38 / 48) * 100)} %)`);
  assert.match(note, /English\u2013Russian/);
  assert.match(note, /0\.15 BLEU/);
  assert.match(note, /not in BERT/);
});

test('encoder layer: the lead says what a causal encoder is and is not', () => {
  const lead = chapterById('encoder-layer').lead;
  assert.match(lead, /attends both ways/);
  assert.match(lead, /block a decoder-only model such as GPT stacks, not an encoder/);
  assert.match(lead, /causal masking is not only for the decoder/);
  assert.match(lead, /encoder-only does not mean causal/);
});

test('further reading: the lesson\u2019s list in the last chapter\u2019s panel, as plain text', () => {
  assert.equal(CHAPTERS.at(-1).id, 'trained-heads');
  const p = panelView({
    chapterId: 'trained-heads',
    config: traceOf({ preset: 'trained-induction' }).config,
    head: 0,
  });
  const text = p.reading.join('\n');
  for (const ref of [
    /Alammar.*The Illustrated Transformer/,
    /Clark.*What Does BERT Look At/,
    /Dao.*FlashAttention/,
    /3Blue1Brown/,
  ])
    assert.match(text, ref);
  for (const cited of [/Michel/, /Voita/, /Ainslie/, /Xiao/, /Wang/, /Elhage/, /Olsson.*Induction Heads/])
    assert.match(text, cited);
  const c = traceOf({ preset: 'trained-induction' }).config;
  quotes(
    p.sizes,
    `n_vocab = ${c.vocab} token ids, N = ${c.numLayers} layers of ${c.numHeads} heads (d_k = ${c.dK}, d_v = ${c.dV})`,
  );
  quotes(p.sizes, `d_model = ${c.dModel}`);
  quotes(p.sizes, `T = ${c.seqLen} tokens`);
  assert.doesNotMatch(text, /https?:|www\./, 'plain text: nothing to load');
});

// Each chapter as the page's title, tagline and package description must name it.
const NAMED = {
  attention: /self-/i,
  cross: /cross-/i,
  gqa: /grouped-query/i,
  'encoder-layer': /encoder layer/i,
  'kv-cache': /KV[ -]cache/,
  flash: /FlashAttention/,
  positions: /positions/i,
  masks: /masks/i,
  modern: /modern attention/i,
  latent: /latent attention/i,
  backward: /backpropagation|backward pass/i,
  'designed-heads': /designed/i,
  'trained-heads': /trained/i,
};

test('the page\u2019s title and tagline, and the package\u2019s description, name every chapter', () => {
  assert.deepEqual(
    Object.keys(NAMED),
    CHAPTERS.map((c) => c.id),
  );
  const html = read('web/index.html');
  const title = html.match(/<title>([^<]*)<\/title>/)[1];
  const tagline = html.match(/<p class="tagline tagline-topics">([^<]*)<\/p>/)[1];
  const { description } = JSON.parse(read('package.json'));
  for (const [where, text] of Object.entries({ title, tagline, description }))
    for (const [id, name] of Object.entries(NAMED)) assert.match(text, name, `${where} names ${id}`);
  assert.match(description, /WebAssembly/);
});

test('the course page is lesson 06', () => {
  const page = read('web/examples/course-page.html');
  assert.doesNotMatch(page, /Week 5/);
  assert.match(page, /<title>Lesson 06: /);
  assert.match(page, /<h1>Lesson 06: /);
});

// "lesson" as a word, not inside an identifier (exampleSeqLen, seed42) or a preset id (lesson-causal).
const LESSON_WORD = /(?<![\w-])lesson(?![\w-])/i;
// "lesson" anywhere but in a seed-42 preset's id (lesson-multi-head, lesson-self-attention, lesson-causal)
// and in SCORM 1.2's data model names (cmi.core.lesson_status, cmi.core.lesson_location).
const LESSON_NAME = /lesson(?!-(?:multi-head|self-attention|causal)\b|_(?:status|location)\b)/i;
// Every line of a source file that is not a comment (whole-line comments and trailing ` // …`).
const codeLines = (text) =>
  text
    .split('\n')
    .map((line, i) => [i + 1, line.replace(/\s\/\/\s.*$/, '')])
    .filter(([, line]) => !/^\s*(\/\/|\/\*|\*)/.test(line));

const NO_LESSON =
  'no sentence the page or the engine shows cites \u201cthe lesson\u201d: the page states facts, cites papers';
test(NO_LESSON, () => {
  const sources = (dir, ext) =>
    fs
      .readdirSync(path.join(ROOT, dir), { recursive: true })
      .filter((f) => ext.test(f) && !f.startsWith('examples'))
      .map((f) => path.join(dir, f));
  const found = [];
  const cite = (file, n, text) => LESSON_WORD.test(text) && found.push(`${file}:${n}: ${text.trim()}`);
  // Under web/ not even a name or a comment: only the three seed-42 preset ids, which links and embeds use.
  const named = (file, n, text) => LESSON_NAME.test(text) && found.push(`${file}:${n}: ${text.trim()}`);
  // Comments too: web/ ships as the page's source, and a lecturer reads it.
  for (const file of sources('web', /\.(js|html|css)$/)) {
    for (const [n, line] of codeLines(read(file))) cite(file, n, line);
    read(file)
      .split('\n')
      .forEach((line, i) => named(file, i + 1, line));
  }
  // The engine's words: its string literals (its variables may be named after the lesson's numbers).
  for (const file of sources('cpp/src', /\.cpp$/))
    for (const [n, line] of codeLines(read(file)))
      for (const literal of line.match(/"(?:[^"\\]|\\.)*"/g) ?? []) cite(file, n, literal);
  assert.deepEqual(found, []);
  for (const p of catalog.presets) assert.doesNotMatch(p.title, LESSON_WORD, p.id);
  assert.match('the lesson\u2019s formula', LESSON_WORD, 'the check finds the word');
  assert.doesNotMatch('exampleSeqLen seed42 lesson-causal', LESSON_WORD, 'and leaves identifiers alone');
  assert.match('p.lessonSeqLen', LESSON_NAME, 'under web/, names too');
  assert.doesNotMatch("['lesson-multi-head', 'lesson-causal']", LESSON_NAME, 'but the preset ids');
  assert.doesNotMatch("set('cmi.core.lesson_status')", LESSON_NAME, 'and SCORM\u2019s names');
});

test('TP-2: training.html defines the induction score over the queries whose token occurred before', () => {
  const page = read('web/training.html');
  const induction = 'occurrence of the current token (induction, over the queries whose token occurred before)';
  assert.ok(page.includes(induction));
});
