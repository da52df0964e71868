// engine.presets() (each spec runs exactly as the preset, chapters and kinds, the chapters'
// defining sizes), engine.models() and engine.kvCacheBytes of the lesson's models, by hand.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { createEngine } from '../../dist/engine.js';

const engine = await createEngine();

describe('presets() and models()', () => {
  // The kinds each chapter shows: one each.
  const CHAPTERS = {
    attention: ['self'],
    gqa: ['self'],
    cross: ['cross'],
    'encoder-layer': ['encoder-layer'],
    'kv-cache': ['kv-cache'],
    flash: ['flash'],
    'designed-heads': ['designed'],
    positions: ['self'],
    masks: ['self'],
    modern: ['self'],
    backward: ['backward'],
    'trained-heads': ['model'],
    latent: ['mla'],
  };

  test('each preset: its fields, and its spec runs exactly as the preset does', () => {
    const presets = engine.presets();
    assert.equal(new Set(presets.map((p) => p.id)).size, presets.length, 'distinct ids');
    for (const p of presets) {
      assert.deepEqual(Object.keys(p).sort(), ['chapter', 'id', 'keyTokens', 'seed42', 'spec', 'title', 'tokens']);
      assert.ok(CHAPTERS[p.chapter].includes(p.spec.kind), `${p.id}: kind ${p.spec.kind} in chapter ${p.chapter}`);
      assert.equal(p.seed42, p.id.startsWith('lesson-'), `${p.id}: seed42`);
      const byId = engine.run({ preset: p.id });
      const bySpec = engine.run(p.spec);
      assert.deepEqual(bySpec.config, byId.config, `${p.id}: config`);
      bySpec.stages.forEach((s, i) => assert.deepEqual(s.values, byId.stages[i].values, `${p.id}: ${s.id}`));
      assert.equal(p.tokens.length, byId.config.seqLen, `${p.id}: a token per query`);
      assert.equal(
        p.keyTokens?.length ?? null,
        p.spec.kind === 'cross' ? byId.config.kvLen : null,
        `${p.id}: keyTokens`,
      );
    }
  });

  test("the chapters' defining sizes", () => {
    const spec = Object.fromEntries(engine.presets().map((p) => [p.id, p.spec]));
    assert.equal(spec['lesson-causal'].skip, 1104);
    assert.equal(spec['gqa-4-2'].numKvHeads, 2);
    assert.equal(spec['mqa-4-1'].numKvHeads, 1);
    assert.deepEqual([spec['cross-padding'].keyLen, spec['cross-padding'].validKeys], [4, 3]);
    assert.equal(spec['encoder-layer'].dFF, 64);
    assert.deepEqual([spec['kv-cache-gqa'].numKvHeads, spec['kv-cache-mha'].numKvHeads], [2, 4]);
    const tiles = ({ causal, blockRows, blockCols }) => [causal, blockRows, blockCols];
    assert.deepEqual(
      [tiles(spec['flash-causal']), tiles(spec['flash-full'])],
      [
        [true, 2, 2],
        [false, 2, 3],
      ],
    );
    // The Positions and Masks chapters: one field each on the same sizes (masks-causal has none).
    const POSITIONS = ['rope', 'alibi', 'positionalEncoding', 'window', 'prefix', 'documents', 'validKeys'];
    const chapter = engine.presets().filter((p) => ['positions', 'masks'].includes(p.chapter));
    assert.deepEqual(
      chapter.map((p) => [p.id, POSITIONS.filter((f) => f in p.spec)]),
      [
        ['positions-rope', ['rope']],
        ['positions-rope-half-split', ['rope']],
        ['positions-alibi', ['alibi']],
        ['positions-sinusoidal', ['positionalEncoding']],
        ['masks-window', ['window']],
        ['masks-prefix', ['prefix']],
        ['masks-documents', ['documents']],
        ['masks-padding', ['validKeys']],
        ['masks-causal', []],
      ],
    );
    assert.deepEqual(spec['positions-rope-half-split'].rope, { convention: 'half-split', offset: 3 });
    assert.deepEqual([spec['masks-window'].window, spec['masks-prefix'].prefix], [3, 3]);
    assert.deepEqual(spec['masks-documents'].documents, [3, 3, 2]);
    for (const p of chapter) assert.deepEqual([p.spec.dModel, p.spec.numHeads, p.spec.weightScale], [16, 4, 1], p.id);
    const sentence = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
    assert.deepEqual(spec['designed-heads'], { kind: 'designed', tokens: sentence, causal: false });
    assert.deepEqual(spec['designed-heads-causal'], { kind: 'designed', tokens: sentence, causal: true });
    // MLA's chapter: 4 heads of d_h 4 from one latent of 8, a shared RoPE key of 2, causal.
    const mla = spec['modern-mla'];
    assert.deepEqual([mla.numHeads, mla.dK, mla.dLatent, mla.dRope, mla.causal], [4, 4, 8, 2, true]);
    // gqa-4-2: K/V parameters 2 · 16 · (4 + 4) = 256 (multi-head 512); cache 5 · 2 · 8 = 80 (160).
    const { kv } = engine.run({ preset: 'gqa-4-2' }).config;
    assert.deepEqual(kv, { params: 256, paramsMha: 512, cacheValues: 80, cacheValuesMha: 160 });
  });

  test("models: the lesson's five rows, Mistral's window, and their attention weights at full context", () => {
    const row = (id, name, dModel, numHeads, dK, numLayers, numKvHeads, contextLength, window = null) => ({
      id,
      name,
      dModel,
      numHeads,
      dK,
      numLayers,
      numKvHeads,
      contextLength,
      window,
      scoreValues: contextLength ** 2 * numHeads * numLayers,
    });
    assert.deepEqual(engine.models(), [
      row('gpt2-124m', 'GPT-2 (124M)', 768, 12, 64, 12, 12, 1024),
      row('gpt2-1.5b', 'GPT-2 (1.5B)', 1600, 25, 64, 48, 25, 1024),
      row('gpt3-175b', 'GPT-3 (175B)', 12288, 96, 128, 96, 96, 2048),
      row('llama3-8b', 'LLaMA 3 (8B)', 4096, 32, 128, 32, 8, 8192),
      row('llama3-70b', 'LLaMA 3 (70B)', 8192, 64, 128, 80, 8, 8192),
      row('mistral-7b', 'Mistral 7B', 4096, 32, 128, 32, 8, 8192, 4096),
    ]);
    assert.equal(engine.models()[2].scoreValues, 38654705664); // 2048² · 96 · 96
  });
});

describe("kvCacheBytes: the lesson's models at full context in fp16", () => {
  // 2 (K and V) · context · d_head · K/V heads · layers · 2 bytes, batch 1.
  const HAND = [
    ['GPT-2 124M: 2 · 1024 · 64 · 12 · 12 · 2 = 36 MiB', [1024, 64, 12, 12], 37748736],
    ['GPT-2 1.5B: 2 · 1024 · 64 · 25 · 48 · 2 = 300 MiB', [1024, 64, 25, 48], 314572800],
    ['GPT-3 175B: 2 · 2048 · 128 · 96 · 96 · 2 = 9 GiB', [2048, 128, 96, 96], 9663676416],
    ['LLaMA 3 8B: 2 · 8192 · 128 · 8 · 32 · 2 = 1 GiB', [8192, 128, 8, 32], 1073741824],
    ['LLaMA 3 70B: 2 · 8192 · 128 · 8 · 80 · 2 = 2.5 GiB', [8192, 128, 8, 80], 2684354560],
  ];
  for (const [title, [seqLen, dHead, numKvHeads, numLayers], bytes] of HAND) {
    test(title, () =>
      assert.equal(engine.kvCacheBytes({ seqLen, dHead, numKvHeads, numLayers, bytesPerValue: 2 }), bytes),
    );
  }
  test('the same from engine.models(), and batch and bytes scale it', () => {
    const bytes = engine.models().map((m) =>
      engine.kvCacheBytes({
        seqLen: m.contextLength,
        dHead: m.dK,
        numKvHeads: m.numKvHeads,
        numLayers: m.numLayers,
        bytesPerValue: 2,
        ...(m.window ? { window: m.window } : {}),
      }),
    );
    // Mistral 7B keeps its window of 4096 of the 8192: 2 · 4096 · 128 · 8 · 32 · 2 = 512 MiB.
    assert.deepEqual(bytes, [...HAND.map(([, , b]) => b), 536870912]);
    const gpt2 = { seqLen: 1024, dHead: 64, numKvHeads: 12, numLayers: 12 };
    assert.equal(engine.kvCacheBytes({ ...gpt2, bytesPerValue: 4, batch: 8 }), 16 * 37748736);
  });
  test('exactly 2^53 comes back exact', () => {
    // 2 · 2²⁶ · 2¹⁰ · 2⁸ · 2⁴ · 2² · 2²
    const edge = { seqLen: 2 ** 26, dHead: 1024, numKvHeads: 256, numLayers: 16, bytesPerValue: 4, batch: 4 };
    assert.equal(engine.kvCacheBytes(edge), 2 ** 53);
  });
});

describe('latentModels and an MLA cache', () => {
  test('DeepSeek-V2-Lite and DeepSeek-V3 as their config.json give them', () => {
    const row = (id, name, dModel, numHeads, numLayers) => ({
      ...{ id, name, dModel, numHeads, dHead: 128, dRope: 64, dLatent: 512, numLayers, contextLength: 163840 },
    });
    assert.deepEqual(engine.latentModels(), [
      row('deepseek-v2-lite', 'DeepSeek-V2-Lite (16B)', 2048, 16, 27),
      row('deepseek-v3', 'DeepSeek-V3 (671B)', 7168, 128, 61),
    ]);
  });
  test('latentDims: tokens · (d_c + d_r) · layers · bytes, 57× less than MHA at the same sizes', () => {
    const mla = engine.kvCacheBytes({ seqLen: 8192, latentDims: 576, numLayers: 61, bytesPerValue: 2 });
    assert.equal(mla, 8192 * 576 * 61 * 2);
    const mha = engine.kvCacheBytes({ seqLen: 8192, dHead: 128, numKvHeads: 128, numLayers: 61, bytesPerValue: 2 });
    assert.equal(mha / mla, (2 * 128 * 128) / 576);
    assert.throws(
      () => engine.kvCacheBytes({ seqLen: 1, latentDims: 576, numKvHeads: 8, numLayers: 1, bytesPerValue: 2 }),
      /^Error: latentDims: and numKvHeads together: an MLA cache keeps one latent row per token/,
    );
    assert.throws(
      () => engine.kvCacheBytes({ seqLen: 1, numKvHeads: 8, numLayers: 1, bytesPerValue: 2 }),
      /^Error: dHead: is missing; give a whole number \(or latentDims for an MLA cache\)$/,
    );
  });
});
