// The stepper's engine calls off the main thread (web/app/off-thread.js) with the built worker
// (dist/attention-stepper-run-worker.js), run in a node thread behind a Worker of the web's shape:
// an action gets the worker's trace, equal to the engine's here; its cells are explained by the
// worker; the form goes ahead of its trace meanwhile; a later action makes an earlier one moot;
// the engine's refusals come back as refusals; and with no worker every call is answered here.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Worker as NodeWorker } from 'node:worker_threads';

import { createEngine } from '../../dist/engine.js';
import { editField, explainCell, runForm } from '../../web/app/actions.js';
import { createOffThread } from '../../web/app/off-thread.js';
import { catalogFrom } from '../../web/model/presets.js';
import { presetForm } from '../../web/state/form.js';

const WORKER = new URL('../../dist/attention-stepper-run-worker.js', import.meta.url).href;

// A module worker as a page has it (self.postMessage, self.addEventListener('message')), in node.
const PRELUDE = `
  const { parentPort } = require('node:worker_threads');
  globalThis.self = {
    postMessage: (data, transfer) => parentPort.postMessage(data, transfer),
    addEventListener: (type, f) => type === 'message' && parentPort.on('message', (data) => f({ data })),
  };
  import(process.env.RUN_WORKER);
`;
const started = [];
class WebWorker {
  constructor(url, options) {
    assert.deepEqual(options, { type: 'module' });
    this.url = url;
    this.thread = new NodeWorker(PRELUDE, { eval: true, env: { ...process.env, RUN_WORKER: url } });
    this.posted = [];
    started.push(this);
  }
  addEventListener(type, f) {
    this.thread.on(type, (data) => f(type === 'message' ? { data } : data));
  }
  postMessage(data) {
    this.posted.push(data);
    this.thread.postMessage(data);
  }
  terminate() {
    this.thread.terminate();
  }
}
globalThis.Worker = WebWorker;
after(() => started.forEach((w) => w.terminate()));

const engine = await createEngine();
const catalog = catalogFrom(engine);
const first = (() => {
  const form = presetForm(catalog, 'lesson-multi-head', 'attention');
  return { form, ...runForm(engine, catalog, form) };
})();

// attempt() as a promise: { interims, patch } once final is called.
function settle(offThread, make, wanted = () => true) {
  return new Promise((resolve) => {
    const interims = [];
    offThread.attempt(make, {
      wanted,
      interim: (p) => interims.push(p),
      final: (patch) => resolve({ interims, patch }),
    });
  });
}

test("an edit's trace comes from the worker, equal to the engine's, and its cells are explained there", async () => {
  const off = createOffThread(engine, WORKER);
  const { interims, patch } = await settle(off, (e) => editField(e, catalog, first, 'seed', '7', null));
  assert.equal(interims.length, 1, 'one interim patch, before the answer');
  assert.equal(interims[0].form.seed, '7', 'the form goes ahead of its trace');
  assert.equal(interims[0].trace, undefined);
  assert.ok(off.ranOffThread(patch.trace));
  const here = engine.run(patch.spec);
  assert.deepEqual(
    patch.trace.stages.map((s) => [s.id, s.head, Array.from(s.values)]),
    here.stages.map((s) => [s.id, s.head, Array.from(s.values)]),
  );
  const cell = { row: 3, col: 1 };
  const s = { ...first, ...patch, step: patch.steps.findIndex((x) => x.id === 'scores') };
  const { explained } = (await settle(off, (e) => explainCell(e, s, cell))).patch;
  const step = patch.steps[s.step];
  assert.deepEqual(explained, engine.explain(here, { stage: 'scores', head: step.head, step: step.step, ...cell }));
  const [worker] = started.slice(-1);
  assert.deepEqual(
    worker.posted.map((m) => m.op),
    ['run', 'explain'],
  );
  assert.equal(worker.posted[1].traceId, worker.posted[0].id, 'the trace the worker kept, not a new run');
  off.destroy();
});

test('a later action makes an earlier one moot; the engine refuses in the worker as it does here', async () => {
  const off = createOffThread(engine, WORKER);
  let latest = 0;
  const asked = (value) => {
    const id = ++latest;
    return settle(
      off,
      (e) => editField(e, catalog, first, 'seed', value, null),
      () => id === latest,
    );
  };
  const moot = asked('8');
  let finals = 0;
  moot.then(() => finals++);
  const { patch } = await asked('9');
  assert.equal(patch.spec.seed, 9);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(finals, 0, 'the moot action never lands');
  const refused = (await settle(off, (e) => editField(e, catalog, first, 'dModel', '15', null))).patch;
  const mainThread = editField(engine, catalog, first, 'dModel', '15', null);
  assert.equal(refused.trace, undefined);
  assert.deepEqual([refused.errors, refused.engineError], [mainThread.errors, mainThread.engineError]);
  assert.match(
    refused.errors.heads,
    /^numHeads: 4 does not divide dModel 15/,
    "the engine's own refusal, under its field",
  );
  off.destroy();
});

test("a page's steppers share one worker; a trace it no longer keeps is explained from its spec", async () => {
  const [a, b] = [createOffThread(engine, WORKER), createOffThread(engine, WORKER)];
  const ranA = (await settle(a, (e) => editField(e, catalog, first, 'seed', '11', null))).patch;
  const ranB = (await settle(b, (e) => editField(e, catalog, first, 'seed', '12', null))).patch;
  assert.equal(started.filter((w) => w.url === WORKER).length, 1, 'one worker for both');
  assert.notDeepEqual(Array.from(ranA.trace.stages.at(-1).values), Array.from(ranB.trace.stages.at(-1).values));
  const s = { ...first, ...ranA, step: ranA.steps.findIndex((x) => x.id === 'weights') };
  const step = s.steps[s.step];
  const cell = { stage: 'weights', head: step.head, step: step.step, row: 2, col: 4 };
  const { explained } = (await settle(a, (e) => explainCell(e, s, cell))).patch;
  assert.deepEqual(explained, engine.explain(ranA.spec, cell), "a's cell, though the worker last ran b's trace");
  const posted = started.find((w) => w.url === WORKER).posted;
  const [runA, runB] = posted.filter((m) => m.op === 'run').slice(-2);
  assert.deepEqual([posted.at(-1).op, posted.at(-1).traceId], ['explain', runA.id]);
  assert.ok(runB.id > runA.id, "b's run came after a's: the worker keeps b's");
  a.destroy();
  b.destroy();
});

test("each head pruned alone: undefined until the worker's answer, then the engine's", async () => {
  const off = createOffThread(engine, WORKER);
  const spec = { preset: 'lesson-multi-head' };
  const answered = new Promise((resolve) => assert.equal(off.pruneEach(spec, resolve), undefined));
  await answered;
  assert.deepEqual(
    off.pruneEach(spec, () => assert.fail('asked once')),
    engine.pruneEach(spec),
  );
  off.destroy();
});

test('with no worker, or one that cannot start, every call is answered on this thread', async () => {
  for (const url of [null, 'file:///nowhere/run-worker.js']) {
    const off = createOffThread(engine, url);
    if (url) off.warm(); // the thread starts, its module does not load: the error lands later
    await new Promise((r) => setTimeout(r, url ? 500 : 0));
    assert.equal(off.offThread, false, String(url));
    let patch = null;
    off.attempt((e) => editField(e, catalog, first, 'seed', '7', null), {
      wanted: () => true,
      interim: () => assert.fail('nothing deferred'),
      final: (p) => (patch = p),
    });
    assert.ok(patch, 'answered synchronously');
    assert.ok(!off.ranOffThread(patch.trace));
    assert.deepEqual(
      Array.from(patch.trace.stages.at(-1).values),
      Array.from(engine.run(patch.spec).stages.at(-1).values),
    );
    off.destroy();
  }
});
