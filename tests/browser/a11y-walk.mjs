// The walk of every chapter's stages that a11y-screens*.test.mjs share: axe-core at each stage
// and a screenshot under build/screenshots/ for a person to look at. Split over files so that
// node's runner walks them side by side (each file its own Chromium).
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { buildSteps } from '../../web/model/navigation.js';
import { useEnv, openPage, waitForStage, goToHash, stageHash, stageSlug, SHOTS } from './harness.mjs';

const SERIOUS = new Set(['serious', 'critical']);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const describe = (where) => (v) =>
  `${where}: ${v.id} (${v.impact}) at ${v.nodes
    .slice(0, 3)
    .map((n) => n.target.join(' '))
    .join(' | ')}`;

// axe-core (the rules @axe-core/playwright runs), injected once per page and run at each stage of
// the walk and at each explain view: AxeBuilder re-injects axe (half a megabyte) at every call,
// which would double the suite's time.
//
// At each stage axe checks what is new in the document: a part of the page (a child of <body>,
// of the stage column or of the sidebar) whose markup, and its ancestors' tags and attributes,
// are exactly as in a DOM axe has already checked in this page leaves the run (it is that same
// DOM, in the same viewport and scheme); the rest, and the page-level rules, run as always. Of an
// ancestor's attributes, a data-* one that no style rule names is left out of the comparison: it
// changes neither what is drawn nor what axe reads (body's data-stage changes at every stage). A
// walk's stages change the figure, formula and stage list, not the form or the chapter's panel:
// 0.2 s of axe a stage instead of 0.6. A part holding a shadow root is always checked.
export async function stageViolations(page, where) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const checked = (window.axeChecked ??= new Set());
    const styled = new Set(
      [...document.styleSheets].flatMap((sheet) =>
        [...sheet.cssRules].flatMap((rule) => rule.cssText.match(/(?<=\[)data-[\w-]+/g) ?? []),
      ),
    );
    const attributes = (el) =>
      [...el.attributes]
        .filter((a) => !a.name.startsWith('data-') || styled.has(a.name))
        .map((a) => `${a.name}="${a.value}"`)
        .sort();
    const tags = (el) => {
      let s = '';
      for (let a = el.parentElement; a; a = a.parentElement) s += `<${a.localName} ${attributes(a).join(' ')}>`;
      return s;
    };
    const all = [...document.querySelectorAll('body > *, #stage > *, .sidebar > *')];
    const parts = all
      .filter((el) => !all.some((other) => other !== el && el.contains(other)))
      .filter((el) => ![el, ...el.querySelectorAll('*')].some((d) => d.shadowRoot))
      .map((el) => ({ el, print: el.outerHTML + tags(el) }));
    const same = parts.filter((p) => checked.has(p.print));
    const { violations } = await window.axe.run(
      { include: [document.documentElement], exclude: same.map((p) => p.el) },
      { resultTypes: ['violations'] },
    );
    for (const p of parts) checked.add(p.print);
    return violations;
  });
  return violations.filter((v) => SERIOUS.has(v.impact)).map(describe(where));
}

// Every stage of each chapter's example (the multi-head lesson, padded cross-attention,
// grouped-query attention, the encoder layer, RoPE, packed documents, the trained model), plus the
// stages only the causal, ALiBi and sinusoidal examples have, and the gradients of two heads
// sharing a K/V head.
export const CHAPTER_WALKS = [
  ['attention', 'lesson-multi-head', () => true],
  ['attention', 'lesson-causal', (s) => s.id === 'masked' || s.id === 'weights'],
  ['cross', 'cross-padding', () => true],
  ['gqa', 'gqa-4-2', (s) => s.head === null || s.head <= 2], // a group's first and second heads, the next group
  ['encoder-layer', 'encoder-layer', (s) => s.head === null || s.head === 0], // its heads are the lesson's
  ['kv-cache', 'kv-cache-gqa', (s) => s.step === null || s.step === 0 || s.step === 4],
  ['flash', 'flash-causal', () => true],
  ['designed-heads', 'designed-heads', (s) => s.head === null || s.head <= 1],
  ['positions', 'positions-rope', (s) => s.head === null || s.head === 0],
  ['positions', 'positions-alibi', (s) => s.id === 'biased' && s.head === 1],
  ['positions', 'positions-sinusoidal', (s) => s.id === 'x_pos'],
  ['masks', 'masks-documents', (s) => s.head === null || s.head === 0],
  ['backward', 'backward-gqa', (s) => s.id.startsWith('d_') && (s.head === null || s.head <= 1)],
  // The trained model's own stages (embeddings, prediction, loss), and layer 1's induction-head weights.
  [
    'trained-heads',
    'trained-induction',
    (s) => s.step === null || (s.id === 'weights' && s.step === 1 && s.head === 0),
  ],
];

// The steps the page shows: the trace's stages and the ones it composes (all heads side by side).
function walk(env, walks) {
  return walks.flatMap(([chapter, preset, keep]) =>
    buildSteps(env.engine.run({ preset }))
      .map(({ stage }, i) => ({ chapter, preset, stage, slug: stageSlug(preset.replace('lesson-', ''), i, stage) }))
      .filter((v) => keep(v.stage)),
  );
}

// A few stages per chapter, for the passes that only take pictures.
const SAMPLE = new Set([
  'x',
  'all_heads',
  'x_q',
  'weights',
  'k',
  'ffn_pre',
  'norm2',
  'k_cache',
  'tile_out',
  'q_rot',
  'biased',
  'x_pos',
  'd_scaled',
  'd_v',
  'd_x',
]);
const sampled = (v) =>
  SAMPLE.has(v.stage.id) &&
  (v.stage.head === null || v.stage.head === 0) &&
  (v.stage.step === null || v.stage.step === 2);

// The usability review's budget for the prose a stage shows (visible words, not counting the
// matrices, formulas, shapes, controls and folded text): a median of at most 80, none over 150.
export const PROSE = { median: 80, max: 150 };

// The words of prose a reader sees in the stage column: words (two letters or more) of text that
// is rendered (not folded in a closed disclosure, not hidden) outside matrices and their captions
// and legends, formulas, tables, shapes, bars and controls.
function visibleWords(page) {
  return page.evaluate(() => {
    const NOT_PROSE = [
      '.hm-scroll, .hm-caption, .hm-foot, .eq-text, .dim-num, .katex, table, .shape-eq, .prune-bars, svg',
      'button, select, input, label, summary, .step-text, .chapter-picker',
    ].join(', ');
    const walker = document.createTreeWalker(document.getElementById('stage'), NodeFilter.SHOW_TEXT);
    let words = 0;
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const e = t.parentElement;
      if (e.closest(NOT_PROSE) || !e.checkVisibility()) continue;
      words += t.textContent.split(/\s+/).filter((w) => /\p{L}\p{L}/u.test(w)).length;
    }
    return words;
  });
}

const PHONE_HEIGHT = 812;

// Which of the stage's title and shape equation a reader opening this link on a phone would have
// to scroll to (their bottom below the first screen).
function belowFirstScreen(page) {
  return page.evaluate(
    (height) =>
      ['stage-title', 'shape-eq'].filter(
        (id) => document.getElementById(id).getBoundingClientRect().bottom + window.scrollY > height,
      ),
    PHONE_HEIGHT,
  );
}

async function sidewaysOverflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

// A full-page screenshot costs a stage about as much as axe does (0.37 s at 1280 px) and no test
// reads it: npm test takes the sample's (about one a stage kind), `npm run screenshots` every stage's.
const EVERY_SHOT = process.env.SCREENSHOTS === 'all';

// One pass over the walks' stages (default: every chapter's) in one viewport and scheme: axe
// (1280 px), sideways scrolling and a screenshot; shots: 'all' walks every stage for the scrolling
// check; extras: the explain panel's views too.
export async function pass(env, { width, colorScheme, axe, shots, walks = CHAPTER_WALKS, extras = true }, prose = []) {
  const started = Date.now();
  const phone = width < 600; // a phone's screen: 812 px tall, and the stage must start on it
  const { page, context } = await openPage(env, '', { width, colorScheme, ...(phone ? { height: PHONE_HEIGHT } : {}) });
  const found = [];
  const suffix = `${width}${colorScheme === 'dark' ? '-dark' : ''}`;
  for (const { chapter, preset, stage, slug } of walk(env, walks).filter(
    (v) => axe === 'all' || shots === 'all' || sampled(v),
  )) {
    await goToHash(
      page,
      `#chapter=${chapter}&${stageHash(preset, stage).slice(1)}${stage.step === null ? '' : `&step=${stage.step}`}`,
    );
    await page.waitForFunction(
      ([id, step]) => document.body.dataset.stage === id && document.body.dataset.step === step,
      [stage.id, stage.step === null ? '' : String(stage.step)],
    );
    await waitForStage(page, stage.id, stage.head);
    if (axe === 'all' || (axe && sampled({ stage })))
      found.push(...(await stageViolations(page, `${slug} ${colorScheme}`)));
    if ((shots === 'all' && EVERY_SHOT) || (shots && sampled({ stage })))
      await page.screenshot({ path: path.join(SHOTS, `${slug}-${suffix}.png`), fullPage: true });
    const overflow = await sidewaysOverflow(page);
    if (overflow > 0) found.push(`${slug} at ${width} px: the page scrolls sideways by ${overflow} px`);
    if (width >= 900 && colorScheme === 'light') {
      const words = await visibleWords(page);
      prose.push(words);
      if (words > PROSE.max) found.push(`${slug}: ${words} words of prose shown (at most ${PROSE.max})`);
    }
    const below = phone ? await belowFirstScreen(page) : [];
    if (below.length) found.push(`${slug} at ${width} px: ${below.join(', ')} below the first screen`);
  }
  // The explain panel open, and the output shown as a sum over heads.
  const views = [
    ['explain-weights', 'weights', '#preset=lesson-multi-head&stage=weights&head=1&cell=2.1'],
    ['explain-output-sum', 'output', '#preset=lesson-multi-head&stage=output&cell=1.2&sum=1'],
    ['explain-cross-masked', 'masked', '#chapter=cross&preset=cross-padding&stage=masked&head=1&cell=0.3'],
    ['explain-gqa-scores', 'scores', '#chapter=gqa&preset=mqa-4-1&stage=scores&head=3&cell=4.0'],
    ['explain-encoder-norm', 'norm1', '#chapter=encoder-layer&preset=encoder-layer&stage=norm1&cell=2.5'],
    ['explain-encoder-ffn', 'ffn_pre', '#chapter=encoder-layer&preset=encoder-layer&stage=ffn_pre&cell=0.3'],
  ];
  for (const [name, id, hash] of extras ? views : []) {
    await goToHash(page, hash);
    await page.waitForFunction(
      (sid) => document.body.dataset.stage === sid && document.querySelector('.explain-panel:not([hidden]) .katex'),
      id,
    );
    if (axe) found.push(...(await stageViolations(page, `${name} ${colorScheme}`)));
    await page.screenshot({ path: path.join(SHOTS, `${name}-${suffix}.png`), fullPage: true });
  }
  found.push(...page.problems);
  await context.close();
  console.log(`# pass ${suffix}${axe ? ' with axe' : ''}: ${Date.now() - started} ms`);
  return found;
}

/** The file's Chromium (set up before its tests, closed after) and a test that runs the passes
 *  in turn and finds nothing; → the env, for the file's other tests. */
export function walkTest(title, passes) {
  const env = useEnv();
  test(title, async () => {
    const found = [];
    const prose = []; // words shown at each stage of the light 1280 px passes
    for (const options of passes) found.push(...(await pass(env, options, prose)));
    assert.deepEqual(found, []);
    if (!prose.length) return;
    const median = prose.toSorted((a, b) => a - b)[Math.floor(prose.length / 2)];
    console.log(`# prose: ${prose.length} stages, median ${median} words, most ${Math.max(...prose)}`);
    assert.ok(median <= PROSE.median, `a median of ${median} words of prose a stage (at most ${PROSE.median})`);
  });
  return () => env;
}
