// Open edX's JSInput in Chromium: embed.html?jsinput=1 in a frame, its getGrade, getState and
// setState called as edX calls them, directly from a parent on the same origin (sop="true") and
// through JSChannel's messages from a parent on another origin (sop="false"); a state that is
// not ours changes nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CSP, newPage, useEnv } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';

const env = useEnv();
const QUERY = 'jsinput=1&preset=lesson-causal&stages=masked,weights';
const HOST = (src) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>edX</title></head><body>' +
  `<iframe id="problem" title="problem" width="1000" height="900" src="${src}"></iframe></body></html>`;

let other; // a second server, another origin, serving the parent page
let dir;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'jsinput-'));
  other = await startServer({ root: dir }); // an LMS's page, with its own policy: none here
});
after(async () => {
  await other?.close();
  rmSync(dir, { recursive: true, force: true });
});

// A parent page at `base` holding embed.html of the test's server in a frame: routed on the same
// origin, served by the other server on another. → { page, context, stepper }.
async function host(base) {
  const { page, context } = await newPage(env);
  const html = HOST(`${env.server.url}embed.html?${QUERY}`);
  if (base === env.server.url)
    await context.route(`${base}edx.html`, (route) =>
      route.fulfill({ status: 200, body: html, contentType: 'text/html' }),
    );
  else writeFileSync(path.join(dir, 'edx.html'), html);
  await page.goto(`${base}edx.html`);
  const stepper = page.frameLocator('#problem').locator('attention-stepper[data-ready="true"][quiz]');
  await stepper.waitFor();
  return { page, context, stepper };
}

// What edX does on the same origin: the frame's global function, called from the parent.
const callIn = (page, name, arg) =>
  page.evaluate(([n, a]) => document.getElementById('problem').contentWindow[n](a), [name, arg]);
// getGrade's answer before any question is answered.
const nothingYet = (total) => ({
  chapter: 'attention',
  preset: 'lesson-causal',
  total,
  answered: 0,
  correct: 0,
  score: 0,
});
const progress = (stepper) => stepper.evaluate((e) => e.quizProgress);

async function answer(stepper, text) {
  const before = await stepper.evaluate((e) => JSON.stringify(e.quizProgress));
  await stepper.locator('#quiz-answer').fill(text);
  await stepper.locator('#quiz-answer').press('Enter');
  await stepper.evaluate(
    (e, was) =>
      new Promise((resolve) => {
        const wait = () => (JSON.stringify(e.quizProgress) !== was ? resolve() : requestAnimationFrame(wait));
        wait();
      }),
    before,
  );
}

const SAME = 'JSInput, same origin: getGrade reports the quiz, getState and setState carry the view and answers';
test(SAME, async () => {
  const { page, context, stepper } = await host(env.server.url);
  const call = (name, arg) => callIn(page, name, arg);
  const total = (await progress(stepper)).total;
  assert.deepEqual(JSON.parse(await call('getGrade')), nothingYet(total));
  await answer(stepper, '(4, 4)'); // masked: right
  await stepper.evaluate((e) => e.next());
  await page.frameLocator('#problem').locator('attention-stepper[data-stage="weights"]').waitFor();
  await answer(stepper, '(5, 5)'); // weights' shape: wrong first
  const grade = JSON.parse(await call('getGrade'));
  assert.deepEqual(grade, { ...grade, total, answered: 2, correct: 1, score: 1 / total });
  const state = await call('getState');
  assert.ok(!state.includes('%'), 'edX unescapes the state: no % in it');
  assert.deepEqual(JSON.parse(state).attributes.slice(0, 3), [
    ['chapter', 'attention'],
    ['preset', 'lesson-causal'],
    ['stage', 'weights'],
  ]);
  const before = await progress(stepper);
  await context.close();

  // A learner coming back: edX calls setState with the state it kept, maybe before the frame is ready.
  const again = await host(env.server.url);
  const callAgain = (name, arg) => callIn(again.page, name, arg);
  for (const foreign of [
    '',
    'not json',
    '{"v":2}',
    JSON.stringify({ v: 1, attributes: [['controls', 'none']], quiz: '' }),
  ])
    await callAgain('setState', foreign);
  await callAgain('setState', state);
  await again.page.frameLocator('#problem').locator('attention-stepper[data-stage="weights"]').waitFor();
  await again.stepper.evaluate(
    (e, n) =>
      new Promise((resolve) => {
        const wait = () => (e.quizProgress?.answered === n ? resolve() : requestAnimationFrame(wait));
        wait();
      }),
    before.answered,
  );
  assert.deepEqual(await progress(again.stepper), before);
  assert.equal(await again.stepper.getAttribute('controls'), 'compact', 'a foreign state changed nothing');
  assert.deepEqual(JSON.parse(await callAgain('getGrade')), grade);
  assert.deepEqual(again.page.problems, []);
  await again.context.close();
});

const OTHER = 'JSInput, another origin (sop="false"): JSChannel ping and pong, then getGrade, getState and setState';
test(OTHER, async () => {
  assert.notEqual(new URL(other.url).origin, new URL(env.server.url).origin);
  const { page, context, stepper } = await host(other.url);
  // edX's side of JSChannel (scope JSInput), as its jsinput.js builds it: JSON text both ways.
  const results = await page.evaluate(async (origin) => {
    const frame = document.getElementById('problem').contentWindow;
    const replies = new Map();
    let ready = false;
    addEventListener('message', (e) => {
      if (e.origin !== origin) return;
      const m = JSON.parse(e.data);
      if (m.method === 'JSInput::__ready') {
        ready = true;
        if (m.params === 'ping')
          frame.postMessage(JSON.stringify({ method: 'JSInput::__ready', params: 'pong' }), origin);
      } else if (m.id) replies.set(m.id, m);
    });
    frame.postMessage(JSON.stringify({ method: 'JSInput::__ready', params: 'ping' }), origin);
    const until = (ok) =>
      new Promise((resolve) => {
        const wait = () => (ok() ? resolve() : setTimeout(wait, 20));
        wait();
      });
    await until(() => ready);
    let id = 0;
    const call = async (method, params = '') => {
      id += 1;
      frame.postMessage(JSON.stringify({ id, method: `JSInput::${method}`, params }), origin);
      const mine = id;
      await until(() => replies.has(mine));
      return replies.get(mine);
    };
    const grade = await call('getGrade');
    const state = await call('getState');
    const set = await call('setState', state.result);
    return { grade, state, set, ids: [grade.id, state.id, set.id] };
  }, new URL(env.server.url).origin);
  const total = (await progress(stepper)).total;
  assert.deepEqual(JSON.parse(decodeURI(results.grade.result)), nothingYet(total));
  assert.equal(JSON.parse(decodeURI(results.state.result)).v, 1);
  assert.deepEqual(results.ids, [1, 2, 3]);
  assert.ok(!('error' in results.set), 'setState took the state');
  // The parent's own page comes from the other origin: not a problem of the frame's.
  assert.deepEqual(
    page.problems.filter((p) => !p.startsWith(`off-site request: ${other.url}`)),
    [],
  );
  await context.close();
});
