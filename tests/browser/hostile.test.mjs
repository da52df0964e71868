// The bad-input table's page cases (hostile-cases.mjs) in headless Chromium under the strict CSP:
// each typed value, and each link and attribute the page must render safely (inBrowser; node
// reads every one in tests/model/hostile-parsing.test.mjs), shows its message (or, accepted, its
// tokens as text), keeps the last good view (stage, head, equation, every number), logs nothing
// to the console, runs no markup and hands nothing hostile to an HTML sink. Also: no HTML sink in
// web/ or in the built bundles, and docs/bad-input.md's table is the one hostile-readme.mjs prints.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { DIST } from '../../scripts/serve.mjs';
import { ROOT, pagePerTest, settled, useEnv } from './harness.mjs';
import {
  ATTRIBUTE_BASE,
  ATTRIBUTE_CASES,
  BASES,
  FORM_CASES,
  HASH_CASES,
  escaped,
  hashOf,
  inBrowser,
  sameMessage,
} from './hostile-cases.mjs';
import {
  BUDGET_END,
  BUDGET_START,
  TRAINING_END,
  TRAINING_START,
  budgetTable,
  table,
  tableInReadme,
  trainingTable,
} from './hostile-readme.mjs';

// An HTML sink parses a string as HTML. innerHTML and outerHTML do so only when assigned: read, they
// serialize (web/element/prerender.js reads a drawn stage's markup that way).
const SINKS = new RegExp(
  String.raw`\b(?:innerHTML|outerHTML)\s*\+?=(?!=)|\b(?:insertAdjacentHTML|document\.write|` +
    String.raw`createContextualFragment|parseFromString|srcdoc|setHTMLUnsafe)\b`,
  'g',
);
// The one sink allowed: web/typeset.js parses the build's prerendered KaTeX HTML (formulas of the
// stage table, never a reader's text) in a <template>, then moves its data-s styles to the CSSOM.
// The runtime trap below checks that nothing hostile reaches it.
const PRERENDERED_PARSE =
  /\.innerHTML\s*=\s*\w+;\s*for\s*\((?:const|let) \w+ of \w+\.content\.querySelectorAll\(["']\[data-s\]["']\)/g;
const HOSTILE = /__hostile|<script|<\/script|<img|<b>|<\/?s>/;

// Runs in each page before its scripts: records what reaches an HTML sink.
function trapSinks() {
  window.__sinks = [];
  const note = (name, value) => window.__sinks.push(`${name}: ${String(value).slice(0, 120)}`);
  for (const [proto, prop] of [
    [Element.prototype, 'innerHTML'],
    [Element.prototype, 'outerHTML'],
    [ShadowRoot.prototype, 'innerHTML'],
  ]) {
    const d = Object.getOwnPropertyDescriptor(proto, prop);
    Object.defineProperty(proto, prop, {
      ...d,
      set(v) {
        note(prop, v);
        d.set.call(this, v);
      },
    });
  }
  for (const [proto, name] of [
    [Element.prototype, 'insertAdjacentHTML'],
    [Document.prototype, 'write'],
    [Range.prototype, 'createContextualFragment'],
    [DOMParser.prototype, 'parseFromString'],
  ]) {
    const f = proto[name];
    proto[name] = function trapped(...args) {
      note(name, args.join(' '));
      return f.apply(this, args);
    };
  }
}

const env = useEnv();

// A fresh page at url (a hash, or embed.html and its query) for each test of the describe it is
// called in, its HTML sinks trapped; use: pagePerTest's.
const trappedPagePerTest = (url, use) => pagePerTest(() => env, url, use, { init: trapSinks });

// Sets the hash and waits for the page's hashchange handler to have run, and for the trace it
// asked of the worker.
async function setHash(page, hash) {
  await page.evaluate(
    (h) =>
      new Promise((resolve) => {
        addEventListener('hashchange', () => setTimeout(resolve, 0), { once: true });
        setTimeout(resolve, 2000);
        if (location.hash === h) dispatchEvent(new HashChangeEvent('hashchange'));
        else location.hash = h;
      }),
    hash,
  );
  await settled(page);
}

// What the reader sees, inside the element's shadow root when there is one (host: its selector).
function viewOf(page, host = null) {
  return page.evaluate((hostSel) => {
    const marker = hostSel ? document.querySelector(hostSel) : document.body;
    const root = hostSel ? marker.shadowRoot : document;
    const texts = (sel, key = 'textContent') => [...root.querySelectorAll(sel)].map((n) => n[key]);
    return {
      chapter: marker.dataset.chapter,
      stage: marker.dataset.stage,
      head: marker.dataset.head,
      equation: root.querySelector('.shape-eq')?.dataset.equation,
      cells: [...root.querySelectorAll('#figure .figure-slot.is-result td.hm-cell')]
        .map((td) => td.shownCell.full)
        .join(' '),
      rows: texts('#figure .figure-slot.is-result th.hm-row'),
    };
  }, host);
}

// Markup never ran and never became an element; nothing hostile reached an HTML sink.
async function assertInert(page) {
  const state = await page.evaluate(() => {
    const roots = [document, ...[...document.querySelectorAll('attention-stepper')].map((e) => e.shadowRoot)];
    return {
      hostile: window.__hostile,
      images: roots.reduce((n, r) => n + r.querySelectorAll('img, script:not([src])').length, 0),
      sinks: window.__sinks,
    };
  });
  assert.equal(state.hostile, undefined, 'markup ran');
  assert.equal(state.images, 0, 'markup became elements');
  assert.deepEqual(
    state.sinks.filter((s) => HOSTILE.test(s)),
    [],
    'hostile text reached an HTML sink',
  );
  assert.deepEqual(page.problems, [], 'console errors, page errors or CSP violations');
}

const pageMessages = (page) =>
  page.$$eval('.field-error, .link-notes li, .engine-error, .status', (ns) =>
    ns.map((n) => n.textContent).filter(Boolean),
  );
const ENGINE_PREFIX = 'The engine rejected this configuration: ';

function assertMessage(shown, c) {
  const found = shown.some((m) => sameMessage(m, c.message) || sameMessage(m.replace(ENGINE_PREFIX, ''), c.message));
  assert.ok(found, `message ${JSON.stringify(escaped(c.message))} not among ${JSON.stringify(shown.map(escaped))}`);
}

// An accepted case shows its tokens as the rows' labels, with the same numbers; a refused one
// shows its message and keeps the view.
function assertOutcome(c, before, now, shown) {
  if (c.accepted) {
    assert.deepEqual(now.rows, c.accepted, 'the tokens, as text');
    assert.deepEqual({ ...now, rows: null }, { ...before, rows: null }, 'the same numbers');
    return;
  }
  assertMessage(shown, c);
  assert.deepEqual(now, before, 'the last good view');
}

const title = (c, i) => `${i + 1}. ${escaped(JSON.stringify({ ...c, message: undefined })).slice(0, 110)}`;

describe('hostile: the URL hash', () => {
  let page;
  trappedPagePerTest(BASES.custom, (opened) => ({ page } = opened));
  HASH_CASES.forEach((c, i) => {
    if (!inBrowser(c)) return;
    test(title(c, i), async () => {
      await setHash(page, c.shows ?? BASES[c.base]);
      const before = await viewOf(page);
      assert.ok(before.cells.length > 0, 'a good view first');
      await setHash(page, hashOf(c));
      assertOutcome(c, before, await viewOf(page), await pageMessages(page));
      await assertInert(page);
    });
  });
});

describe('hostile: the form fields', () => {
  let page;
  trappedPagePerTest(BASES.custom, (opened) => ({ page } = opened));
  FORM_CASES.forEach((c, i) => {
    test(title(c, i), async () => {
      await setHash(page, BASES.custom);
      const before = await viewOf(page);
      await page.fill(`#field-${c.field}`, c.value);
      await settled(page);
      assertOutcome(c, before, await viewOf(page), await pageMessages(page));
      await assertInert(page);
    });
  });
});

describe('hostile: the element attributes', () => {
  const HOST = 'attention-stepper';
  let page;
  const query = new URLSearchParams(ATTRIBUTE_BASE).toString();
  trappedPagePerTest(`embed.html?${query}`, async (opened) => {
    ({ page } = opened);
    await page.waitForSelector(`${HOST}[data-ready="true"]`);
  });

  // Back to the base attributes, and ready without a message: each case ends by checking that
  // the element recovers from it.
  async function restore(set) {
    await page.evaluate(
      ({ names, base }) => {
        const host = document.querySelector('attention-stepper');
        for (const name of names) if (base[name] === undefined) host.removeAttribute(name);
        for (const [name, value] of Object.entries(base)) host.setAttribute(name, value);
      },
      { names: Object.keys(set), base: ATTRIBUTE_BASE },
    );
    await page.waitForFunction(() => {
      const host = document.querySelector('attention-stepper');
      return (
        host.dataset.ready === 'true' &&
        !host.dataset.error &&
        host.dataset.stage === 'scores' &&
        host.shadowRoot.querySelectorAll('.as-message').length === 0
      );
    });
  }

  ATTRIBUTE_CASES.forEach((c, i) => {
    if (!inBrowser(c)) return;
    test(title(c, i), async () => {
      const before = await viewOf(page, HOST);
      assert.equal(before.stage, 'scores');
      await page.evaluate((set) => {
        const host = document.querySelector('attention-stepper');
        for (const [name, value] of Object.entries(set)) host.setAttribute(name, value);
      }, c.set);
      if (c.accepted) {
        await page.waitForFunction((rows) => {
          const shown = [
            ...document.querySelector('attention-stepper').shadowRoot.querySelectorAll('#figure .is-result th.hm-row'),
          ];
          return shown.map((th) => th.textContent).join('\n') === rows.join('\n');
        }, c.accepted);
      } else {
        await page.waitForSelector(`${HOST}[data-error="true"]`);
      }
      try {
        const shown = await page.$$eval(`${HOST} .as-message li`, (li) => li.map((l) => l.textContent));
        assertOutcome(c, before, await viewOf(page, HOST), shown);
        await assertInert(page);
      } finally {
        await restore(c.set);
      }
    });
  });
});

describe('hostile: no HTML sinks, and the bad-input table', () => {
  const files = (dir, ext) =>
    readdirSync(dir, { recursive: true })
      .filter((f) => ext.test(f))
      .map((f) => path.join(dir, f));

  test('the sinks looked for: an assignment to innerHTML or outerHTML, not a read', () => {
    const found = (text) => text.match(SINKS) ?? [];
    assert.deepEqual(found('a.innerHTML = b; c.outerHTML += d; e.innerHTML=f'), [
      'innerHTML =',
      'outerHTML +=',
      'innerHTML=',
    ]);
    assert.deepEqual(found('return clone.innerHTML; if (a.innerHTML === b) x(c.outerHTML)'), []);
    assert.deepEqual(found('el.insertAdjacentHTML("beforeend", t); document.write(t)'), [
      'insertAdjacentHTML',
      'document.write',
    ]);
  });

  test('no innerHTML or other HTML sink in web/ or in the built bundles (but the prerendered formulas\u2019)', () => {
    const offenders = [...files(path.join(ROOT, 'web'), /\.m?js$/), ...files(DIST, /\.m?js$/)].flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      const sinks = text.match(SINKS) ?? [];
      const allowed = (text.match(PRERENDERED_PARSE) ?? []).length;
      return sinks.length > allowed ? [`${path.relative(ROOT, f)}: ${sinks.join(', ')}`] : [];
    });
    assert.deepEqual(offenders, []);
  });

  // node tests/browser/hostile-readme.mjs --write rewrites it.
  test('docs/bad-input.md holds the table hostile-readme.mjs prints', () => {
    assert.equal(tableInReadme(), table());
    assert.equal(tableInReadme(undefined, TRAINING_START, TRAINING_END), trainingTable());
    assert.equal(tableInReadme(undefined, BUDGET_START, BUDGET_END), budgetTable());
  });
});
