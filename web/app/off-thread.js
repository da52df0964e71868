// The stepper's engine calls off the main thread. A worker (run-worker.js) holds an engine of its
// own and runs traces, prunes heads and explains cells there, so that the page keeps answering its
// reader while a large configuration computes (seconds at the largest sizes on a phone).
//
// An action runs as it does on the main thread, against the engine attempt() hands it, from the
// state it was taken in: a call whose answer is not in yet throws Deferred. The worker is asked,
// and the action runs again, with every answer it has had, until nothing is deferred. A trace the
// worker ran is explained by the worker, which keeps the last one it ran.
// Without a worker (file://, a script from another origin, a CSP that refuses it, an engine that
// did not load there) each call is answered on the main thread, as it always was.

/** Thrown by a call whose answer the worker is computing; the action is run again once it is in. */
export class Deferred extends Error {
  constructor(question) {
    super('being computed off the main thread');
    this.question = question;
  }
}

const keyOf = (op, ...parts) => `${op}:${JSON.stringify(parts)}`;

// One worker for every stepper of a page that names the same script (an engine each would cost a
// page of four steppers four engines' memory): its message ids are the page's, and each stepper
// reads the replies to its own.
const threads = new Map(); // script URL → { worker, broken, ids, listeners }

function threadAt(url) {
  if (!url || typeof Worker === 'undefined') return null;
  if (!threads.has(url)) threads.set(url, { worker: null, broken: false, ids: 0, listeners: new Set() });
  return threads.get(url);
}

function breakThread(thread) {
  thread.broken = true;
  thread.worker?.terminate();
  thread.worker = null;
  for (const listener of thread.listeners) listener.fail();
}

function startThread(thread, url) {
  if (thread.worker || thread.broken) return;
  try {
    thread.worker = new Worker(url, { type: 'module' });
  } catch {
    breakThread(thread); // file://, or a script of another origin
    return;
  }
  thread.worker.addEventListener('message', (event) => {
    for (const listener of thread.listeners) listener.message(event);
  });
  const failed = () => breakThread(thread); // its script did not load (a CSP, a 404)
  thread.worker.addEventListener('error', failed);
  thread.worker.addEventListener('messageerror', failed);
}

/**
 * createOffThread(engine, workerUrl) → { attempt(make, { wanted, interim, final }), pruneEach(spec, onAnswer),
 * ranOffThread(trace), warm(), offThread, destroy() }. make(engine) returns a patch; interim(patch) gets what
 * make returned while some call of it was deferred, final(patch) what it returns once nothing is; wanted()
 * says whether the action still matters (a later one makes it moot).
 */
export function createOffThread(engine, workerUrl) {
  const thread = threadAt(workerUrl);
  const broken = () => !thread || thread.broken;
  let inFlight = null; // { id, question, wanted, receive }
  const queue = [];
  const traces = new WeakMap(); // a trace the worker ran → { id, spec }
  let figure = { key: null, answer: undefined }; // the last pruneEach asked for render

  // The engine call a question stands for, answered here.
  function answerHere({ op, spec, cell }) {
    try {
      if (op === 'run') return { value: engine.run(spec) };
      if (op === 'explain') return { value: engine.explain(spec, cell) };
      return { value: engine.pruneEach(spec) };
    } catch (error) {
      return { error: error.message };
    }
  }

  // The worker is gone: the question it had is answered here, and every one after it.
  function fail() {
    const lost = inFlight;
    inFlight = null;
    if (lost) lost.receive(answerHere(lost.question));
    pump();
  }

  function message({ data }) {
    if (!inFlight || data.id !== inFlight.id) return; // another stepper's, or a moot one's
    if (data.broken) return breakThread(thread);
    const done = inFlight;
    inFlight = null;
    if (data.trace) traces.set(data.trace, { id: data.id, spec: done.question.spec });
    done.receive(data.trace ? { value: data.trace } : data);
    pump();
  }
  const listener = { message, fail };
  thread?.listeners.add(listener);

  // One question at a time in the worker: an action made moot before its turn is never sent.
  // Not re-entered: an answer given here may ask the next question, which this loop then takes.
  let pumping = false;
  function pump() {
    if (pumping) return;
    pumping = true;
    try {
      while (!inFlight && queue.length) {
        if (!broken()) startThread(thread, workerUrl);
        const next = queue.shift();
        if (!next.wanted()) continue;
        if (broken()) {
          next.receive(answerHere(next.question));
          continue;
        }
        inFlight = { ...next, id: ++thread.ids };
        const { op, spec, cell, traceId } = next.question;
        thread.worker.postMessage({ id: inFlight.id, op, spec, cell, traceId });
      }
    } finally {
      pumping = false;
    }
  }

  function ask(question, wanted, receiveAnswer) {
    queue.push({ question, wanted, receive: receiveAnswer });
    pump();
  }

  // The engine an action runs against: its answers so far, else Deferred (or, with no worker, the
  // main thread's answer).
  function deferring(answers, asked) {
    const answer = (question) => {
      if (!answers.has(question.key)) {
        if (broken()) answers.set(question.key, answerHere(question));
        else {
          asked.push(question);
          throw new Deferred(question);
        }
      }
      const got = answers.get(question.key);
      if ('error' in got) throw new Error(got.error);
      return got.value;
    };
    return {
      ...engine,
      run: (spec, options) =>
        options === undefined ? answer({ key: keyOf('run', spec), op: 'run', spec }) : engine.run(spec, options),
      explain(specOrTrace, cell) {
        const ran = traces.get(specOrTrace);
        if (!ran) return engine.explain(specOrTrace, cell); // a trace of this thread, or a spec
        return answer({ key: keyOf('explain', ran.id, cell), op: 'explain', spec: ran.spec, cell, traceId: ran.id });
      },
      pruneEach: (spec) => answer({ key: keyOf('pruneEach', spec), op: 'pruneEach', spec }),
    };
  }

  return {
    attempt(make, { wanted, interim, final }) {
      const answers = new Map();
      const pass = () => {
        if (!wanted()) return;
        const asked = [];
        let patch;
        try {
          patch = make(deferring(answers, asked));
        } catch (error) {
          if (!(error instanceof Deferred)) throw error;
        }
        if (!asked.length) return final(patch);
        if (patch) interim(patch);
        const question = asked[0];
        ask(question, wanted, (got) => {
          answers.set(question.key, got);
          pass();
        });
      };
      pass();
    },
    /** engine.pruneEach(spec) for a view: the answer once in (undefined until then; onAnswer says when). */
    pruneEach(spec, onAnswer) {
      if (broken()) return engine.pruneEach(spec);
      const key = keyOf('pruneEach', spec);
      if (figure.key !== key) {
        figure = { key, answer: undefined };
        const asking = figure;
        ask(
          { key, op: 'pruneEach', spec },
          () => figure === asking,
          (got) => {
            asking.answer = got;
            onAnswer();
          },
        );
      }
      const got = figure.answer;
      if (got && 'error' in got) throw new Error(got.error);
      return got?.value;
    },
    /** Whether the worker ran this trace (its cells are explained there). */
    ranOffThread: (trace) => traces.has(trace),
    /** Starts the worker's engine loading, before the first question needs it. */
    warm: () => thread && startThread(thread, workerUrl),
    /** Whether the worker answers (false: the main thread does). */
    get offThread() {
      return !broken();
    },
    /** Drops this stepper's questions; the worker stays, for the page's other steppers. */
    destroy() {
      queue.length = 0;
      inFlight = null;
      thread?.listeners.delete(listener);
    },
  };
}
