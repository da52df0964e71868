// The stepper computes a new configuration in its worker (web/app/off-thread.js) while the page
// keeps answering: a key steps through the last trace meanwhile, the status says what is shown,
// and the new trace, once in, is the engine's, at the stage the reader stepped to.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatFull } from '../../web/model/format.js';
import { catalogFrom } from '../../web/model/presets.js';
import { validateForm } from '../../web/model/validate.js';
import { stateFromHash } from '../../web/state/url-hash.js';
import { pagePerTest, settled, urlMatching, useEnv, waitForStage } from './harness.mjs';

const env = useEnv();
let page;
pagePerTest(
  () => env,
  '#chapter=attention&tokens=the+cat+sat+on+mats&dModel=1024&heads=1&stage=x',
  (opened) => ({ page } = opened),
);

const T = 512;
const TOKENS = Array.from({ length: T }, (_, i) => `w${i}`);

test('a large configuration computes off the main thread: keys step the last trace, then the new one', async () => {
  await waitForStage(page, 'x');
  const during = await page.evaluate((tokens) => {
    const field = document.getElementById('field-tokens');
    field.value = tokens;
    field.dispatchEvent(new Event('input', { bubbles: true }));
    const pending = Boolean(document.querySelector('.layout.is-pending'));
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    return {
      pending,
      stage: document.body.dataset.stage,
      stillPending: Boolean(document.querySelector('.layout.is-pending')),
      result: document.querySelector('#figure .figure-slot.is-result .hm-grid').getAttribute('aria-label'),
    };
  }, TOKENS.join(' '));
  const last = { pending: true, stage: 'q', stillPending: true, result: during.result };
  assert.deepEqual(during, last, 'the last trace, stepped');
  assert.match(during.result, /^Q, 5 by 1024\b/);
  await page.waitForSelector('.layout.is-computing');
  assert.match(
    await page.textContent('.status'),
    /^Computing the new configuration… The stage below is still the previous one\.$/,
  );
  assert.equal(await page.isVisible('.form-busy'), true, 'said below the fields too');
  await settled(page);
  assert.equal(await page.isHidden('.form-busy'), true);
  const drawnEmpty = await page.$$eval('.field-error:empty', (ps) => ps.filter((p) => p.offsetHeight > 0).length);
  assert.equal(drawnEmpty, 0, "the form line's rule names only itself: no empty field message is drawn");
  assert.equal(await page.$eval('body', (b) => b.dataset.stage), 'q', 'the place the reader stepped to');
  assert.equal(await page.$('.layout.is-computing'), null);
  assert.equal(await page.isHidden('.status'), true);
  assert.match(await page.getAttribute('#figure .figure-slot.is-result .hm-grid', 'aria-label'), /^Q, 512 by 1024\b/);
  // The spec the page's URL holds once the new trace is shown, as the page reads it.
  const url = await urlMatching(page, /tokens=w0\+w1\+/);
  const catalog = catalogFrom(env.engine);
  const { spec } = validateForm(catalog, stateFromHash(catalog, new URL(url).hash).form);
  assert.deepEqual([spec.seqLen, spec.dModel, spec.numHeads], [T, 1024, 1]);
  const q = env.engine.run(spec).stages.find((s) => s.id === 'q');
  const shown = await page.$$eval('#figure .figure-slot.is-result tr:first-of-type td.hm-cell', (tds) =>
    tds.slice(0, 6).map((td) => td.shownCell.full),
  );
  assert.equal(shown.length, 6);
  assert.deepEqual(shown, Array.from(q.values.subarray(0, 6), formatFull), "the engine's Q, row 0");
});
