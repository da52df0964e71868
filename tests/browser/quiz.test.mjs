// Quiz mode ("predict, then reveal") in headless Chromium (its pure logic, every preset's
// questions and verdicts: tests/wasm/quiz.test.mjs): quiz=1 hides the result until it is answered, a wrong
// shape gets a hint from the operands' shapes, value questions (a masked weight, a row sum, the
// key with the most weight), keyboard only with aria-live feedback, the element, axe, and
// screenshots at 1280 and 375 px.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { formatCell } from '../../web/model/format.js';
import { catalogFrom } from '../../web/model/presets.js';
import {
  SHOTS,
  axeBuilder,
  goToHash,
  newPage,
  openPage,
  resultTexts,
  useEnv,
  waitForStage,
  urlMatching,
} from './harness.mjs';

const env = useEnv();
let catalog; // catalogFrom(env.engine), once the env is set up

const SERIOUS = new Set(['serious', 'critical']);

// ---- in the browser ----

const card = (page) => page.locator('#quiz .quiz-card');
const feedback = (page) => page.locator('#quiz-feedback');
const scoreOf = (page) => page.textContent('.quiz-score');

// Does act, then waits for the feedback to change and returns it.
async function feedbackAfter(page, act) {
  const before = await feedback(page).textContent();
  await act();
  await page.waitForFunction((b) => document.querySelector('#quiz-feedback').textContent !== b, before);
  return feedback(page).textContent();
}

const answer = (page, text) =>
  feedbackAfter(page, async () => {
    await page.fill('#quiz-answer', text);
    await page.press('#quiz-answer', 'Enter');
  });

// lesson-causal's weights and the key with the most weight in their last row, from the trace.
function causalWeights() {
  const weights = env.engine.run({ preset: 'lesson-causal' }).stages.find((s) => s.id === 'weights');
  const last = Array.from(weights.values.slice(12, 16));
  const best = last.indexOf(Math.max(...last));
  return {
    weights,
    best,
    key: (catalog ??= catalogFrom(env.engine)).presets.find((p) => p.id === 'lesson-causal').tokens[best],
  };
}

async function seriousViolations(page, where) {
  const { violations } = await axeBuilder(page).analyze();
  return violations
    .filter((v) => SERIOUS.has(v.impact))
    .map(
      (v) =>
        `${where}: ${v.id} (${v.impact}) at ${v.nodes
          .slice(0, 3)
          .map((n) => n.target.join(' '))
          .join(' | ')}`,
    );
}

const PAGE_SHAPE_QUESTION_TITLE =
  'page: quiz=1 hides the result and its shape; a wrong shape ' +
  'gets the operands\u2019 hint, the right one reveals and scores';
test(PAGE_SHAPE_QUESTION_TITLE, async () => {
  const { page, context } = await openPage(
    env,
    '#chapter=attention&preset=lesson-multi-head&stage=scores&head=0&quiz=1',
  );
  await waitForStage(page, 'scores', 0);
  await card(page).waitFor();
  assert.equal(await page.textContent('.quiz-prompt'), 'What shape will scores have?');
  assert.ok(await page.isHidden('#figure .figure-slot.is-result'), 'the result is hidden');
  assert.ok(await page.isHidden('.shape-eq'), 'so is the shape equation');
  assert.ok(await page.isVisible('#figure .hm[data-matrix="Q"]'), 'the operands stay, to predict from');
  const tree = await page.locator('#stage').ariaSnapshot();
  assert.match(tree, /grid "Q/);
  assert.doesNotMatch(tree, /grid "scores/, 'the hidden result is out of the accessibility tree');
  assert.match(
    await answer(page, '5, 4'),
    /^Not quite\. Q is \(5, 4\) and Kᵀ is \(4, 5\): a product takes the outer sizes/,
  );
  assert.equal(await page.getAttribute('#quiz-answer', 'aria-invalid'), 'true');
  assert.equal(await scoreOf(page), 'Score: 1 answered, 0 right first time');
  assert.match(await answer(page, '(5, 5)'), /^Right: \(5, 5\); that is \(T, T\)\. The result is shown\./);
  await page.locator('#figure .figure-slot.is-result').waitFor();
  const stage = env.engine.run({ preset: 'lesson-multi-head' }).stages.find((s) => s.id === 'scores' && s.head === 0);
  assert.deepEqual(await resultTexts(page), Array.from(stage.values, formatCell));
  assert.ok(await page.isVisible('.shape-eq'));
  assert.match(await page.locator('#stage').ariaSnapshot(), /grid "scores/);
  assert.equal(await scoreOf(page), 'Score: 1 answered, 0 right first time', 'a second try is not first time');
  await urlMatching(page, /&quiz=1/);
  await page.uncheck('.quiz-toggle input');
  await page.waitForFunction(() => !/quiz=1/.test(window.location.hash));
  assert.ok(await card(page).isHidden());
  assert.deepEqual(page.problems, []);
  await context.close();
});

const PAGE_VALUE_QUESTIONS_TITLE =
  'page: value questions on the causal weights: a masked weight, a row sum, the key with the most weight';
test(PAGE_VALUE_QUESTIONS_TITLE, async () => {
  const { page, context } = await openPage(env, '#chapter=attention&preset=lesson-causal&stage=weights&quiz=1');
  await waitForStage(page, 'weights');
  const { weights, key } = causalWeights();
  assert.match(
    await answer(page, '4x4'),
    /^Right: \(4, 4\).*Next: The mask hid key “cat” from query “the”\. What is weights\[0, 1\]\?/,
  );
  assert.equal(await page.textContent('.quiz-position'), 'Question 2 of 4');
  assert.match(await answer(page, '0.5'), /^Not quite\. Look at L\[0, 1\]: it is −∞\./);
  assert.match(
    await answer(page, '0'),
    /^Right: 0\.000; a masked key gets no weight at all\. Next: What do the weights in row 1/,
  );
  assert.match(await answer(page, '0.9'), /^Not quite\. The softmax divides each exponential/);
  assert.match(await answer(page, '1'), new RegExp(`^Right: ${formatCell(weights.totals[1]).replace('.', '\\.')}`));
  assert.ok(await page.isHidden('#figure .figure-slot.is-result'), 'still hidden: one question left');
  assert.match(await answer(page, key), /^Right: .*The result is shown\./);
  await page.locator('#figure .figure-slot.is-result').waitFor();
  assert.deepEqual(await page.$$eval('.quiz-item-status', (s) => s.map((x) => x.textContent)), [
    '(right first time)',
    '(right)',
    '(right)',
    '(right first time)',
  ]);
  assert.equal(await scoreOf(page), 'Score: 4 answered, 2 right first time');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const PAGE_KEYBOARD_TITLE =
  'page: keyboard only: Tab to the field, Enter checks, feedback is announced, ←/→ step outside the field';
test(PAGE_KEYBOARD_TITLE, async () => {
  const { page, context } = await openPage(env, '#chapter=attention&preset=lesson-self-attention&stage=scaled&quiz=1');
  await waitForStage(page, 'scaled');
  assert.equal(await feedback(page).getAttribute('role'), 'status');
  assert.equal(await feedback(page).getAttribute('aria-live'), 'polite');
  assert.equal(await page.getAttribute('.quiz-form', 'aria-labelledby'), 'quiz-title');
  assert.equal(await page.textContent('label[for="quiz-answer"]'), 'What shape will scaled have?');
  let tabs = 0;
  while ((await page.evaluate(() => document.activeElement?.id)) !== 'quiz-answer') {
    await page.keyboard.press('Tab');
    assert.ok((tabs += 1) < 60, 'the answer field is reachable with Tab');
  }
  await page.keyboard.press('ArrowRight');
  assert.equal(
    await page.evaluate(() => document.body.dataset.stage),
    'scaled',
    '→ in the field moves the caret, not the stage',
  );
  const typeAndEnter = (text) =>
    feedbackAfter(page, async () => {
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
    });
  assert.match(await typeAndEnter('5 5'), /Next: Every score is divided by √d_k/);
  assert.equal(
    await page.evaluate(() => document.activeElement?.id),
    'quiz-answer',
    'the field stays focused for the next question',
  );
  assert.match(await typeAndEnter('4'), /That is d_k itself/);
  await page.keyboard.press('Control+A');
  assert.match(await typeAndEnter('2'), /^Right: √4;.*The result is shown\./);
  assert.equal(
    await page.evaluate(() => document.activeElement?.id),
    'quiz-title',
    'focus moves to the card, not the body',
  );
  await page.keyboard.press('ArrowRight');
  await waitForStage(page, 'weights');
  assert.equal(await page.textContent('.quiz-prompt'), 'What shape will weights have?');
  await page.keyboard.press('ArrowLeft');
  await waitForStage(page, 'scaled');
  assert.ok(await page.isVisible('#figure .figure-slot.is-result'), 'an answered stage stays revealed');
  assert.deepEqual(page.problems, []);
  await context.close();
});

const ELEMENT_QUIZ_TITLE =
  'element: the quiz attribute (through embed.html\u2019s query string) asks ' +
  'inside the shadow root; "Show me" reveals; controls=none has no switch';
test(ELEMENT_QUIZ_TITLE, async () => {
  const { page, context } = await newPage(env);
  await page.addInitScript(() => {
    window.answers = [];
    document.addEventListener('quizanswer', (e) => window.answers.push(e.detail));
  });
  await page.goto(`${env.server.url}embed.html?preset=lesson-causal&stage=masked&quiz`);
  const host = page.locator('attention-stepper[quiz]');
  await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="masked"]');
  await host.locator('.quiz-card').waitFor();
  assert.ok(await host.locator('.figure-slot.is-result').isHidden());
  assert.match(await host.locator('.quiz-prompt').textContent(), /What shape will L have\?/);
  await host.locator('#quiz-answer').fill('4');
  await host.locator('#quiz-answer').press('Enter');
  await host.locator('#quiz-feedback', { hasText: 'I could not read that' }).waitFor();
  await host.locator('#quiz-answer').fill('4 by 4');
  await host.locator('#quiz-answer').press('Enter');
  await host.locator('.figure-slot.is-result').waitFor();
  assert.equal(await host.locator('.quiz-score').textContent(), 'Score: 1 answered, 1 right first time');
  // The course page hears each readable answer (the unreadable "4" is none).
  assert.deepEqual(await page.evaluate(() => window.answers), [
    {
      chapter: 'attention',
      preset: 'lesson-causal',
      stage: 'masked',
      head: 0,
      question: 'What shape will L have?',
      answer: '4 by 4',
      expected: '(4, 4)',
      correct: true,
    },
  ]);
  await page.evaluate(() => document.querySelector('attention-stepper').next());
  await page.waitForSelector('attention-stepper[data-stage="weights"]');
  await host.locator('.quiz-show').click();
  await host.locator('.figure-slot.is-result').waitFor();
  const { weights, best, key } = causalWeights();
  assert.deepEqual(await host.locator('.quiz-item-answer').allTextContents(), [
    '(4, 4)',
    '0.000',
    formatCell(weights.totals[1]),
    `\u201c${key}\u201d (column ${best})`,
  ]);
  // controls="none" shows the stage only: no switch, and no quiz without the attribute.
  await page.goto(`${env.server.url}embed.html?preset=lesson-causal&stage=weights&controls=none`);
  await page.waitForSelector('attention-stepper[data-ready="true"]');
  assert.ok(await page.locator('attention-stepper .quiz-toggle').isHidden());
  assert.ok(await page.locator('attention-stepper .figure-slot.is-result').isVisible());
  assert.deepEqual(page.problems, []);
  await context.close();
});

// A lecturer's chosen stages in quiz mode: every question of the path answered, the course page
// hears quizcomplete once, with the share right first time.
test('element: quizcomplete once every question of the chosen stages is answered, scored first time', async () => {
  const { page, context } = await newPage(env);
  await page.addInitScript(() => {
    window.completed = [];
    document.addEventListener('quizcomplete', (e) => window.completed.push(e.detail));
  });
  await page.goto(`${env.server.url}embed.html?preset=lesson-causal&stages=masked,weights&quiz`);
  const host = page.locator('attention-stepper[quiz]');
  await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="masked"]');
  // Types an answer and waits for the card to take it: its score or its feedback changes.
  const card = () => {
    const root = document.querySelector('attention-stepper').shadowRoot;
    return `${root.querySelector('.quiz-score').textContent}|${root.querySelector('#quiz-feedback')?.textContent}`;
  };
  const answer = async (text) => {
    const before = await page.evaluate(card);
    await host.locator('#quiz-answer').fill(text);
    await host.locator('#quiz-answer').press('Enter');
    await page.waitForFunction(`(${card})() !== ${JSON.stringify(before)}`);
  };
  await answer('4 by 4');
  await page.evaluate(() => document.querySelector('attention-stepper').next());
  await page.waitForSelector('attention-stepper[data-stage="weights"]');
  await answer('(4, 4)');
  await answer('0');
  assert.deepEqual(await page.evaluate(() => window.completed), [], 'not before the last question');
  await answer('2'); // wrong: the row sums to 1
  await answer('1');
  await answer(causalWeights().key);
  await page.waitForFunction(() => window.completed.length > 0);
  assert.deepEqual(await page.evaluate(() => window.completed), [
    { chapter: 'attention', preset: 'lesson-causal', answered: 5, correct: 4, score: 0.8 },
  ]);
  assert.deepEqual(page.problems, []);
  await context.close();
});

const AXE_QUIZ_TITLE =
  'axe finds no serious or critical issue in quiz mode; screenshots of a quiz in progress at 1280 and 375 px';
test(AXE_QUIZ_TITLE, async () => {
  const found = [];
  for (const [width, colorScheme] of [
    [1280, 'light'],
    [375, 'light'],
    [1280, 'dark'],
  ]) {
    const { page, context } = await openPage(env, '#chapter=attention&preset=lesson-causal&stage=weights&quiz=1', {
      width,
      colorScheme,
    });
    await waitForStage(page, 'weights');
    found.push(...(await seriousViolations(page, `asking ${width} ${colorScheme}`)));
    await answer(page, '4, 4');
    await answer(page, '1');
    found.push(...(await seriousViolations(page, `after a wrong answer ${width} ${colorScheme}`)));
    const suffix = `${width}${colorScheme === 'dark' ? '-dark' : ''}`;
    await page.screenshot({ path: path.join(SHOTS, `quiz-in-progress-${suffix}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) found.push(`${width} px: the page scrolls sideways by ${overflow} px`);
    await goToHash(page, '#chapter=flash&preset=flash-causal&stage=tile_scores&head=0&t=0&quiz=1');
    await page.waitForFunction(() => document.body.dataset.stage === 'tile_scores');
    await answer(page, '2, 2');
    assert.ok(await page.isHidden('.tile-box'), 'the tile grid would give the answer away');
    if (width === 1280 && colorScheme === 'light')
      await page.screenshot({ path: path.join(SHOTS, 'quiz-flash-next-tile-1280.png'), fullPage: true });
    assert.match(await answer(page, 'skipped'), /^Right: skipped/);
    found.push(...page.problems);
    await context.close();
  }
  assert.deepEqual(found, []);
});

// A lecturer's link: quiz=required. The switch is shown, not the reader's; Next waits for the
// stage's answer with a notice; "Show me" comes after a try; answered, Next goes on.
const REQUIRED =
  'quiz=required: Next waits for the stage\u2019s answer, the switch cannot lift it, "Show me" after a try';
test(REQUIRED, async () => {
  const { page, context } = await openPage(env, '#chapter=attention&preset=lesson-causal&stage=masked&quiz=required');
  await waitForStage(page, 'masked');
  assert.equal(await page.isDisabled('.quiz-toggle input'), true);
  assert.match(await page.textContent('.quiz-toggle'), /this course asks you to predict each result/);
  assert.equal(await page.isVisible('.quiz-show'), false, '"Show me" waits for a try');
  await page.click('.step-next');
  await page.waitForFunction(() => /Answer this stage/.test(document.querySelector('.status')?.textContent ?? ''));
  assert.equal(await page.getAttribute('body', 'data-stage'), 'masked', 'Next held');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute('body', 'data-stage'), 'masked', 'and the key too');
  await answer(page, '(1, 1)');
  assert.equal(await page.isVisible('.quiz-show'), true);
  await answer(page, '(4, 4)');
  await page.click('.step-next');
  await waitForStage(page, 'weights');
  assert.match(page.url(), /quiz=required/, 'the link keeps the setting');
  assert.deepEqual(page.problems, []);
  await context.close();
});
