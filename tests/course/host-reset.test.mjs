// Inherited CSS properties cross the shadow boundary. A host page that sets every text property a
// course theme or slide deck might (centred, uppercase, spaced, pre-formatted, hyphenated,
// right-to-left, vertical, shadowed; SVG paint) must not change a pixel of the stepper: the
// :host reset in web/styles/element.css. Compared against the same element on a plain page.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { STRICT_CSP as CSP } from '../../scripts/chromium.mjs';
import { DIST, SHOTS, launch, requireDist, startServer, watchProblems } from './course-harness.mjs';

// Set on an ancestor of the element; all inherited. (Not here: visibility, pointer-events,
// cursor and user-select, which the element keeps inheriting on purpose.)
// inline-size: the ancestor's height in its vertical writing mode, tall enough for the element
// (else an rtl vertical ancestor puts the element's top above the page, out of any screenshot).
const HOSTILE_CSS = `.hostile {
  inline-size: 1300px;
  text-align: center; text-align-last: center; text-indent: 3em; text-transform: uppercase;
  letter-spacing: .2em; word-spacing: 1em; font: italic small-caps 900 condensed 42px/3 cursive;
  font-feature-settings: "smcp"; font-variant-numeric: oldstyle-nums; font-kerning: none;
  font-size-adjust: .3; font-synthesis: none; font-palette: dark; white-space: pre; text-wrap: balance;
  word-break: break-all; overflow-wrap: anywhere; hyphens: auto; line-break: anywhere;
  direction: rtl; writing-mode: vertical-rl; text-orientation: upright;
  text-shadow: 0 0 2px red; -webkit-text-stroke: 1px red; -webkit-text-fill-color: green;
  text-emphasis: dot red; text-underline-offset: 5px; text-rendering: geometricPrecision;
  list-style: square inside; border-collapse: collapse; border-spacing: 5px; empty-cells: hide;
  caption-side: bottom; tab-size: 2; quotes: "<" ">"; accent-color: red; caret-color: red; color: red;
  fill: red; fill-opacity: .3; stroke: red; stroke-opacity: .3; stroke-width: 5; stroke-dasharray: 2;
  stroke-linecap: round; stroke-linejoin: round; paint-order: stroke; text-anchor: middle;
  dominant-baseline: hanging; shape-rendering: crispEdges; image-rendering: pixelated;
  color-interpolation: linearRGB;
}
attention-stepper { width: 1100px; height: 1200px; }`;

// The properties the host resets, compared on every element inside the shadow root.
const RESET = [
  'direction',
  'writing-mode',
  'text-orientation',
  'text-align',
  'text-align-last',
  'text-indent',
  'text-transform',
  'text-shadow',
  'text-emphasis-style',
  'text-underline-offset',
  'text-rendering',
  'letter-spacing',
  'word-spacing',
  'line-height',
  'font-size',
  'font-style',
  'font-weight',
  'font-family',
  'font-variant-caps',
  'font-variant-numeric',
  'font-feature-settings',
  'font-kerning',
  'font-size-adjust',
  'font-stretch',
  'font-synthesis-weight',
  'font-palette',
  'white-space-collapse',
  'text-wrap-mode',
  'text-wrap-style',
  'word-break',
  'overflow-wrap',
  'line-break',
  'hyphens',
  'tab-size',
  '-webkit-text-fill-color',
  '-webkit-text-stroke-width',
  'list-style-type',
  'list-style-position',
  'border-collapse',
  'border-spacing',
  'empty-cells',
  'caption-side',
  'quotes',
  'accent-color',
  'caret-color',
  'color',
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-opacity',
  'stroke-width',
  'stroke-dasharray',
  'stroke-linecap',
  'stroke-linejoin',
  'paint-order',
  'text-anchor',
  'dominant-baseline',
  'shape-rendering',
  'image-rendering',
  'color-interpolation',
];

const ELEMENT =
  '<attention-stepper preset="lesson-multi-head" stage="weights" head="1" controls="full" theme="light">' +
  '</attention-stepper>';
const html = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host reset</title>
<link rel="stylesheet" href="hostile.css"><script defer src="attention-wasm.classic.js"></script>
<script defer src="attention-stepper.classic.js"></script></head><body>${body}</body></html>`;

let browser;
let server;

before(async () => {
  requireDist();
  [browser, server] = await Promise.all([launch(), startServer({ root: DIST, csp: CSP })]);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// A channel that differs by this much or less is raster noise: under load Chromium may round the
// element's corners and the arcs' antialiasing one level differently between two identical renders.
const NOISE = 4;

// How many pixels of two same-sized PNGs differ by more than NOISE in a channel, decoded by the
// browser; Infinity if the sizes do.
async function differingPixels(a, b) {
  const page = await browser.newPage();
  const urls = [a, b].map((png) => `data:image/png;base64,${png.toString('base64')}`);
  const count = await page.evaluate(
    async ([sources, noise]) => {
      const pixels = await Promise.all(
        sources.map(async (src) => {
          const image = new Image();
          image.src = src;
          await image.decode();
          const canvas = new OffscreenCanvas(image.width, image.height);
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          return context.getImageData(0, 0, image.width, image.height);
        }),
      );
      const [p, q] = pixels;
      if (p.width !== q.width || p.height !== q.height) return null;
      let n = 0;
      for (let i = 0; i < p.data.length; i += 4) {
        const delta = Math.max(...[0, 1, 2].map((c) => Math.abs(p.data[i + c] - q.data[i + c])));
        if (delta > noise) n += 1;
      }
      return n;
    },
    [urls, NOISE],
  );
  await page.close();
  return count ?? Infinity;
}

// The element on a page whose body is `body`: its computed RESET properties (host and every
// element in its shadow root) and a screenshot of it.
async function render(body, shot) {
  // A whole-pixel height (1200) and a viewport that holds it: the same subpixel offsets on both pages.
  const context = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
  const files = { 'page.html': [html(body), 'text/html'], 'hostile.css': [HOSTILE_CSS, 'text/css'] };
  for (const [name, [text, type]] of Object.entries(files)) {
    await context.route(server.url + name, (r) =>
      r.fulfill({ status: 200, body: text, headers: { 'Content-Type': type, 'Content-Security-Policy': CSP } }),
    );
  }
  const page = watchProblems(await context.newPage());
  await page.goto(server.url + 'page.html');
  await page.waitForSelector('attention-stepper[data-ready="true"][data-stage="weights"]');
  // The engine's rest, KaTeX and the formulas' second font faces arrive after the first paint:
  // compare the element once everything is in, not while a face is swapping.
  await page.waitForLoadState('networkidle');
  await page.evaluate(() =>
    document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))),
  );
  const styles = await page.$eval(
    'attention-stepper',
    (host, names) => {
      const all = [host, ...host.shadowRoot.querySelectorAll('*')].filter(
        (e) => !['link', 'style'].includes(e.localName),
      );
      return all.map((e) => {
        const cs = getComputedStyle(e);
        return [
          e === host ? ':host' : `${e.localName}.${String(e.getAttribute('class') ?? '').split(' ')[0]}`,
          names.map((n) => cs.getPropertyValue(n)),
        ];
      });
    },
    RESET,
  );
  const png = await page.locator('attention-stepper').screenshot({ path: shot, animations: 'disabled' });
  assert.deepEqual(page.problems, []);
  await context.close();
  return { styles, png };
}

const NO_LEAK =
  "a host page's inherited text, direction, writing-mode and SVG settings do not reach inside the element";
test(NO_LEAK, async () => {
  const plain = await render(ELEMENT, path.join(SHOTS, 'course-host-plain.png'));
  const hostile = await render(
    `<div class="hostile" dir="rtl">${ELEMENT}</div>`,
    path.join(SHOTS, 'course-host-hostile.png'),
  );
  assert.equal(hostile.styles.length, plain.styles.length, 'same elements inside');
  const leaks = [];
  plain.styles.forEach(([name, values], i) =>
    values.forEach((v, j) => {
      const got = hostile.styles[i][1][j];
      if (got !== v) leaks.push(`${name} ${RESET[j]}: ${v} → ${got}`);
    }),
  );
  assert.deepEqual(leaks.slice(0, 20), [], `${leaks.length} inherited values leaked in`);
  // A leaked property moves or recolours thousands of pixels, by far more than NOISE.
  const differ = await differingPixels(plain.png, hostile.png);
  assert.ok(
    differ <= 20,
    `${differ} pixels differ by more than ${NOISE} (build/screenshots/course-host-*.png; at most 20)`,
  );
});
