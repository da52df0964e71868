// The SCORM 1.2 package under a real SCORM runtime: scorm-again's Scorm12API as the LMS's
// window.API in a host page, the package zipped by scripts/package-scorm.mjs, unzipped and its
// launch file opened in a frame as an LMS opens it, served with .mjs and .wasm of the wrong type.
// A learner answers the path's questions (wrong, then right: failed; right first time: passed),
// and the test reads what the LMS holds: status, score, location, suspend data, exit, commits,
// the finish with the session's time, and a resumed session back on its stage with its answers.
// The arithmetic and the 4,096 characters: tests/wasm/scorm.test.mjs.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { unzipSync, zipSync } from 'fflate';
import { CSP, ROOT, newPage, useEnv } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { LAUNCH, packagesOf } from '../../scripts/package-scorm.mjs';

const env = useEnv();
let lms; // { server, dir }: the host page and the unzipped package, served together

const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>LMS</title>
<script src="scorm12.js"></script></head>
<body><iframe id="sco" title="course" width="1200" height="900"></iframe></body></html>`;

before(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scorm-'));
  const [pkg] = packagesOf({ chapters: ['attention'], mastery: 70 });
  const zip = zipSync(Object.fromEntries(Object.entries(pkg.files).map(([f, b]) => [f, new Uint8Array(b)])));
  for (const [file, bytes] of Object.entries(unzipSync(zip))) {
    mkdirSync(path.dirname(path.join(dir, 'course', file)), { recursive: true });
    writeFileSync(path.join(dir, 'course', file), bytes);
  }
  mkdirSync(path.join(dir, 'lms'));
  writeFileSync(path.join(dir, 'lms', 'host.html'), HOST);
  writeFileSync(
    path.join(dir, 'lms', 'scorm12.js'),
    readFileSync(path.join(ROOT, 'node_modules', 'scorm-again', 'dist', 'scorm12.js')),
  );
  lms = { dir, server: await startServer({ root: dir, csp: CSP }) };
});
after(async () => {
  await lms?.server.close();
  if (lms) rmSync(lms.dir, { recursive: true, force: true });
});

// The host page with a fresh Scorm12API (seeded with `data`, scorm-again's JSON of cmi, as an LMS
// seeds a returning learner), the package's launch file in its frame, .mjs and .wasm sent as
// application/octet-stream. → { page, context, frame, stepper } once the stepper is ready.
async function launch(data = null) {
  const { page, context } = await newPage({ browser: env.browser, server: lms.server });
  await context.route(/\.(mjs|wasm)$/, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
  });
  await page.goto(`${lms.server.url}lms/host.html`);
  await page.evaluate((seed) => {
    window.calls = { commit: 0, finish: 0 };
    window.API = new window.Scorm12API({ logLevel: 5, autocommit: false });
    if (seed) window.API.loadFromJSON(seed);
    window.API.on('LMSCommit', () => (window.calls.commit += 1));
    window.API.on('LMSFinish', () => (window.calls.finish += 1));
  }, data);
  await page.$eval('#sco', (frame, src) => (frame.src = src), `../course/${LAUNCH}`);
  const frame = page.frameLocator('#sco');
  await frame.locator('attention-stepper[data-ready="true"]').waitFor();
  const stepper = frame.locator('attention-stepper');
  return { page, context, frame, stepper };
}

// What the LMS holds: the values a gradebook reads (through scorm-again's JSON of cmi, which
// shows the write-only ones too).
const held = (page) =>
  page.evaluate(() => {
    const { core, suspend_data: suspend } = JSON.parse(JSON.stringify(window.API.cmi));
    return {
      status: core.lesson_status,
      raw: core.score.raw,
      min: core.score.min,
      max: core.score.max,
      location: core.lesson_location,
      exit: core.exit,
      sessionTime: core.session_time,
      suspend,
      calls: { ...window.calls },
    };
  });

// The stepper's own view, read in its frame.
const current = (stepper) => stepper.evaluate((e) => ({ ...e.current, progress: e.quizProgress }));

// Next, once the stepper has moved on (its index on the path grows).
async function next(stepper) {
  const { index } = await current(stepper);
  await stepper.evaluate((e) => e.next());
  await stepper.evaluate(
    (e, i) =>
      new Promise((resolve) => {
        const wait = () => (e.current.index > i ? resolve() : requestAnimationFrame(wait));
        wait();
      }),
    index,
  );
}

// Types one answer; → true when it was readable (the element told the page: quizanswer), false
// when the card only asked again (given 30 frames).
async function answer(stepper, text) {
  const before = await stepper.evaluate(() => window.answers.length);
  await stepper.locator('#quiz-answer').fill(text);
  await stepper.locator('#quiz-answer').press('Enter');
  return stepper.evaluate(
    (e, n) =>
      new Promise((resolve) => {
        let frames = 0;
        const wait = () =>
          window.answers.length > n ? resolve(true) : (frames += 1) > 30 ? resolve(false) : requestAnimationFrame(wait);
        wait();
      }),
    before,
  );
}

const listen = (stepper) =>
  stepper.evaluate((e) => {
    window.answers = [];
    e.addEventListener('quizanswer', (event) => window.answers.push(event.detail));
  });

// The question on the card, keyed by its stage: "weights|In row 3 …".
const asked = async (stepper) =>
  `${(await current(stepper)).stage}|${await stepper.locator('label[for="quiz-answer"]').textContent()}`;

// Answers the questions of each stage of the path, going Next after each, to the path's end, at
// most `limit` readable answers. answerFor(key, tries, heard) → the text to type; heard: the
// quizanswer details so far (the expected answers among them). → heard.
async function walk(stepper, answerFor, limit = Infinity) {
  await listen(stepper);
  const field = stepper.locator('#quiz-answer');
  let given = 0;
  for (;;) {
    let tries = 0;
    while (given < limit && (await field.isVisible())) {
      const heard = await stepper.evaluate(() => window.answers);
      if (await answer(stepper, answerFor(await asked(stepper), tries, heard))) ((given += 1), (tries = 0));
      else tries += 1;
    }
    const { index, total } = await current(stepper);
    if (index === total - 1 || given >= limit) break; // the path's last stage (index from 0)
    await next(stepper);
  }
  return stepper.evaluate(() => window.answers);
}

// A readable answer of the question's form that is (almost surely) wrong, then the expected one.
const WRONG = ['(1, 1)', '-98765', '0', '1'];
const rightText = (expected) => /\(column (\d+)\)$/.exec(expected)?.[1] ?? expected;

let expected = null; // "stage|question" → the expected answer, from the first run

const keyOf = (a) => `${a.stage}|${a.question}`;

// The page's problems but Chromium's own line for the module the LMS sent with the wrong type,
// which the engine then loads as a classic script (web/engine-classic.js).
const WRONG_TYPE = /^console\.error: Failed to load module script: .*MIME type of "application\/octet-stream"/;
const problemsOf = (page) => page.problems.filter((p) => !WRONG_TYPE.test(p));

const FAILED = 'SCORM 1.2 under scorm-again: every question wrong first, then right: failed, the LMS told at each step';
test(FAILED, async () => {
  const { page, context, stepper } = await launch();
  assert.equal(await page.frameLocator('#sco').locator('#scorm').getAttribute('data-lms'), 'connected');
  const start = await held(page);
  assert.equal(start.status, 'incomplete', 'incomplete from the first stage');
  assert.equal(start.location, 'stage=x');
  const answers = await walk(stepper, (key, tries, heard) => {
    const known = heard.find((a) => keyOf(a) === key);
    return known ? rightText(known.expected) : WRONG[Math.min(tries, WRONG.length - 1)];
  });
  expected = new Map(answers.map((a) => [keyOf(a), a.expected]));
  const { progress } = await current(stepper);
  const firstRight = answers.filter((a, i) => a.correct && !answers.slice(0, i).some((b) => keyOf(b) === keyOf(a)));
  assert.ok(progress.total >= 10, `the path asks ${progress.total} questions`);
  assert.deepEqual(progress, { total: progress.total, answered: progress.total, correct: firstRight.length });
  const end = await held(page);
  const raw = Math.round((100 * firstRight.length) / progress.total);
  assert.ok(raw < 70, `${raw}: wrong first is failing`);
  assert.deepEqual(
    { status: end.status, raw: end.raw, min: end.min, max: end.max, exit: end.exit },
    { status: 'failed', raw: String(raw), min: '0', max: '100', exit: '' },
  );
  assert.equal(end.location, 'stage=output');
  // A commit after every readable answer and every stage change (10 Next presses), and the first.
  assert.ok(end.calls.commit >= answers.length + 10 + 1, `${end.calls.commit} commits`);
  assert.equal(end.calls.finish, 0, 'not finished while open');
  // Leaving the page (pagehide) finishes the session, with its time.
  await page.$eval('#sco', (frame) => (frame.src = 'about:blank'));
  await page.waitForFunction(() => window.calls.finish === 1);
  // CMITimespan (scorm-again keeps it as HH:MM:SS.SS): the seconds the learner spent.
  const [h, m, sec] = (await held(page)).sessionTime.split(':').map(Number);
  assert.ok(h === 0 && m === 0 && sec > 1 && sec < 600, (await held(page)).sessionTime);
  assert.deepEqual(problemsOf(page), []);
  await context.close();
});

const RESUMED =
  'SCORM 1.2 under scorm-again: right first time passes; a resumed session opens where it was, with its answers';
test(RESUMED, async () => {
  assert.ok(expected, 'the first test collected the expected answers');
  const rightFirst = (key) => rightText(expected.get(key));
  const { page, context, stepper } = await launch({ student_data: { mastery_score: '90' } });
  const total = (await current(stepper)).progress.total;
  const half = Math.floor(total / 2);
  await walk(stepper, rightFirst, half); // half the path's questions, then the learner leaves
  const left = await current(stepper);
  assert.deepEqual(left.progress, { total, answered: half, correct: half });
  const midway = await held(page);
  assert.deepEqual(
    { status: midway.status, exit: midway.exit, raw: midway.raw },
    { status: 'incomplete', exit: 'suspend', raw: String(Math.round((100 * half) / total)) },
  );
  assert.match(
    midway.suspend,
    /^1\|chapter=attention&preset=lesson-multi-head&stage=[a-z_]+&head=0&quiz=required\|[0-9a-z!:,]+$/,
  );
  await page.$eval('#sco', (frame) => (frame.src = 'about:blank'));
  await page.waitForFunction(() => window.calls.finish === 1);
  const record = await page.evaluate(() => JSON.parse(JSON.stringify(window.API.cmi)));
  await context.close();

  // The LMS seeds the next session with what it kept, as it does for a returning learner.
  const again = await launch({
    core: { lesson_location: record.core.lesson_location, lesson_status: 'incomplete', entry: 'resume' },
    suspend_data: record.suspend_data,
    student_data: { mastery_score: '90' },
  });
  assert.equal(await again.page.frameLocator('#sco').locator('#scorm').getAttribute('data-lms'), 'resumed');
  const back = await current(again.stepper);
  assert.deepEqual(
    { stage: back.stage, head: back.head, index: back.index, progress: back.progress },
    { stage: left.stage, head: left.head, index: left.index, progress: left.progress },
  );
  await walk(again.stepper, rightFirst);
  const done = await held(again.page);
  assert.deepEqual(
    { status: done.status, raw: done.raw, exit: done.exit },
    { status: 'passed', raw: '100', exit: '' },
    'every question right first time, across both sessions, passes the LMS mastery of 90',
  );
  assert.deepEqual(problemsOf(again.page), []);
  await again.context.close();
});

test("SCORM 1.2 under scorm-again: a record of a chapter not in the package opens the package's start", async () => {
  const { page, context, stepper } = await launch({
    core: { lesson_location: 'stage=weights', lesson_status: 'incomplete', entry: 'resume' },
    suspend_data: '1|chapter=masks&preset=masks-window&stage=weights&head=0|',
  });
  assert.equal(await page.frameLocator('#sco').locator('#scorm').getAttribute('data-lms'), 'connected');
  const opened = await current(stepper);
  assert.deepEqual(
    {
      chapter: await stepper.getAttribute('data-chapter'),
      stage: opened.stage,
      chapters: await stepper.getAttribute('chapters'),
    },
    { chapter: 'attention', stage: 'x', chapters: 'attention' },
  );
  assert.deepEqual(problemsOf(page), []);
  await context.close();
});
