// The README's reveal.js recipe, for real: tests/course/reveal/deck.html with reveal.js 5 from
// node_modules (the pinned devDependency) and dist/ beside it. The stepper fits its slide at
// every stage, the deck's centred, uppercase text stays outside it, ←/→ with the focus inside
// step the stepper and elsewhere move the deck. Screenshot: build/screenshots/course-reveal-slide.png.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  COURSE,
  DIST,
  ROOT,
  SHOTS,
  launch,
  requireDist,
  startServer,
  watchProblems,
  workDir,
} from './course-harness.mjs';
import { readmeLines } from './readme.mjs';

const REVEAL = path.join(ROOT, 'node_modules', 'reveal.js');

let browser;
let server;
let page;

before(async () => {
  requireDist();
  if (!existsSync(path.join(REVEAL, 'dist', 'reveal.js')))
    throw new Error('node_modules/reveal.js is missing: run npm ci (reveal.js is a devDependency)');
  // The deck's folder as the README has it: reveal.js/ and attention-stepper/ beside the deck.
  const dir = workDir('reveal');
  for (const f of ['deck.html', 'deck.js']) copyFileSync(path.join(COURSE, 'reveal', f), path.join(dir, f));
  symlinkSync(path.join(REVEAL, 'dist'), path.join(dir, 'reveal.js'));
  symlinkSync(DIST, path.join(dir, 'attention-stepper'));
  [browser, server] = await Promise.all([launch(), startServer({ root: dir })]);
  page = watchProblems(await browser.newPage({ viewport: { width: 1280, height: 720 } }));
  await page.goto(`${server.url}deck.html`);
  await page.waitForFunction(() => window.Reveal?.isReady());
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const deck = () =>
  page.evaluate(() => {
    const el = document.querySelector('attention-stepper');
    return { slide: Reveal.getIndices().h, stage: el.dataset.stage };
  });
const settled = () => page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));

test("the deck is the README's recipe, with reveal.js 5, the pinned devDependency", () => {
  const deckHtml = readFileSync(path.join(COURSE, 'reveal', 'deck.html'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  for (const line of readmeLines('**reveal.js.**', 'html'))
    assert.ok(deckHtml.includes(line), `deck.html has the README's line ${line}`);
  const deckJs = readFileSync(path.join(COURSE, 'reveal', 'deck.js'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  for (const line of readmeLines('**reveal.js.**', 'js'))
    assert.ok(deckJs.includes(line), `deck.js has the README's line ${line}`);
  const { version } = JSON.parse(readFileSync(path.join(REVEAL, 'package.json'), 'utf8'));
  assert.match(version, /^5\./);
  const pinned = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies['reveal.js'];
  assert.equal(pinned, version, 'package.json pins the version installed');
});

const IN_SLIDE =
  "the slide shows the stepper at its stage, inside the slide, without the deck's centred uppercase text";
test(IN_SLIDE, async () => {
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="masked"]');
  assert.deepEqual(await deck(), { slide: 1, stage: 'masked' });
  await settled();
  const looks = await page.$eval('attention-stepper', (el) => {
    const pick = (e, ...names) => names.map((n) => getComputedStyle(e).getPropertyValue(n));
    return {
      slide: pick(el.closest('section'), 'text-align'),
      heading: pick(el.closest('section').querySelector('h2'), 'text-transform'),
      description: pick(
        el.shadowRoot.querySelector('p.explanation'),
        'text-align',
        'text-transform',
        'letter-spacing',
        'line-height',
        'font-size',
      ),
      title: pick(el.shadowRoot.querySelector('.stage-heading h2'), 'text-align', 'text-transform', 'letter-spacing'),
    };
  });
  assert.deepEqual(looks.slide, ['center'], 'the deck centres its text');
  assert.deepEqual(looks.heading, ['uppercase'], 'and capitalises its headings');
  assert.deepEqual(looks.description, ['start', 'none', 'normal', '24px', '16px'], "the stepper's text is its own");
  assert.deepEqual(looks.title, ['start', 'none', 'normal']);
  // The deck's 1200 × 800 (deck.js, as in the README) leaves room for every stage under the heading.
  for (const stage of ['scaled', 'masked', 'weights']) {
    await page.$eval('attention-stepper', (el, s) => el.goTo(s), stage);
    await page.waitForSelector(`attention-stepper[data-stage="${stage}"]`);
    const [element, slides] = await page.evaluate(() =>
      [document.querySelector('attention-stepper'), document.querySelector('.reveal .slides')].map((e) =>
        e.getBoundingClientRect().toJSON(),
      ),
    );
    assert.ok(
      element.bottom <= slides.bottom + 1 && element.top >= slides.top - 1,
      `${stage}: the element (${element.top}–${element.bottom}) fits the slide (${slides.top}–${slides.bottom})`,
    );
  }
  await page.$eval('attention-stepper', (el) => el.goTo('masked'));
  await page.waitForSelector('attention-stepper[data-stage="masked"]');
  await page.screenshot({ path: path.join(SHOTS, 'course-reveal-slide.png') });
  assert.deepEqual(page.problems, []);
});

test('←/→ with the focus inside the stepper step it; outside they move the deck', async () => {
  await page.locator('attention-stepper .step-prev').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('attention-stepper[data-stage="weights"]');
  assert.deepEqual(await deck(), { slide: 1, stage: 'weights' }, '→ stepped the stepper, not the deck');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('attention-stepper[data-stage="masked"]');
  assert.deepEqual(await deck(), { slide: 1, stage: 'masked' }, '← too');
  await page.keyboard.press('End');
  await page.waitForSelector('attention-stepper[data-stage="weights"]');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await deck(), { slide: 1, stage: 'weights' }, '→ at the last step stays in the stepper');
  // Focus outside (a click on the slide's heading): the keys are the deck's again.
  await page.click('section.present h2');
  assert.equal(await page.evaluate(() => document.activeElement.localName), 'body');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => Reveal.getIndices().h === 2);
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => Reveal.getIndices().h === 1);
  assert.deepEqual(await deck(), { slide: 1, stage: 'weights' }, 'the stepper kept its stage while the deck moved');
  assert.deepEqual(page.problems, []);
});

// Found here: a stepper button that becomes disabled (Prev at the first step, Next at the last)
// dropped the focus to <body>, so the next ← or → moved the deck instead of the stepper.
test('the focus stays inside the stepper when the button it is on becomes disabled', async () => {
  await page.$eval('attention-stepper', (el) => el.goTo('masked'));
  await page.waitForSelector('attention-stepper[data-stage="masked"]');
  await page.locator('attention-stepper .step-next').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('attention-stepper[data-stage="weights"]');
  assert.equal(
    await page.evaluate(() => document.activeElement.localName),
    'attention-stepper',
    'focus still inside the element',
  );
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await deck(), { slide: 1, stage: 'masked' }, '← steps back instead of leaving the slide');
});
