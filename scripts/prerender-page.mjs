// Part of the page build (scripts/build-page.mjs): index.html's first stage, painted by the page
// itself in headless Chromium and written into dist/index.html as static markup, so that a phone
// paints it before any script or WebAssembly arrives (issue 36). The page then mounts in one task
// over the same markup (web/main.js), and nothing moves.
//
// The markup is #app as the page holds it once everything is in (the engine's rest, KaTeX and the
// later script: main.js mounts only then), the form's values as attributes, and what the strict
// CSP would refuse turned into CSS:
//   - each heatmap row's fills canvas (one pixel a cell) → a strip of <i>, one a cell, each with
//     a class whose colour is the canvas's pixel, in the light and in the dark scheme;
//   - each row's text strip (runs of cells inked for contrast on their fills) → one span a cell,
//     with a class for its ink in either scheme;
//   - every style attribute (custom properties such as --cols, widths, a legend's gradient) → a
//     class with the same declarations in either scheme, !important to keep an inline style's
//     precedence.
// The rules are appended to dist/attention-stepper-page.css, which index.html already loads.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

// In the page: #app's first frame as markup, its fills' colours and its inline styles.
function serialize() {
  const app = document.getElementById('app');
  const clone = app.cloneNode(true);
  // What the form holds lives in properties: as attributes, so that the markup shows it.
  const fields = [...app.querySelectorAll('input, option')];
  [...clone.querySelectorAll('input, option')].forEach((copy, k) => {
    const field = fields[k];
    if (field.tagName === 'OPTION') copy.toggleAttribute('selected', field.selected);
    else if (field.type === 'checkbox' || field.type === 'radio') copy.toggleAttribute('checked', field.checked);
    else copy.setAttribute('value', field.value);
  });
  const live = [...app.querySelectorAll('canvas')];
  const fills = [];
  [...clone.querySelectorAll('canvas')].forEach((copy, k) => {
    const canvas = live[k];
    const strip = document.createElement('span');
    strip.className = `${canvas.className} pr-fills`;
    strip.setAttribute('aria-hidden', 'true');
    if (canvas.classList.contains('hm-fills') && canvas.width > 0) {
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, 1).data;
      for (let c = 0; c < canvas.width; c += 1) {
        const cell = document.createElement('i');
        const [r, g, b, a] = data.slice(4 * c, 4 * c + 4);
        if (a > 0) {
          cell.className = `pf-${fills.length}`;
          fills.push(a === 255 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${(a / 255).toFixed(3)})`);
        }
        strip.append(cell);
      }
    }
    copy.replaceWith(strip);
  });
  // A row's text strip colours its runs of cells for contrast on their fills, so the runs differ
  // by scheme: one span a cell instead, each with a class for its colour.
  const inks = [];
  for (const strip of clone.querySelectorAll('.hm-text')) {
    const chars = Number(strip.closest('table').style.getPropertyValue('--chars'));
    const cells = [...strip.children].flatMap((run) =>
      (run.textContent.match(new RegExp(`[^]{${chars}}`, 'g')) ?? []).map((text) => [text, run.style.color]),
    );
    strip.replaceChildren(
      ...cells.map(([text, colour]) => {
        const span = document.createElement('span');
        span.className = `pt-${inks.length}`;
        span.textContent = text;
        inks.push(colour);
        return span;
      }),
    );
  }
  // A style attribute → a class of its own (a legend's gradient differs by scheme).
  const styles = [];
  for (const node of clone.querySelectorAll('[style]')) {
    node.classList.add(`ps-${styles.length}`);
    styles.push([...node.style].map((p) => `${p}:${node.style.getPropertyValue(p)} !important`).join(';'));
    node.removeAttribute('style');
  }
  // The legend's memo of the gradient it drew (views/heatmap.js), which differs by scheme.
  for (const node of clone.querySelectorAll('[data-gradient]')) node.removeAttribute('data-gradient');
  return { html: clone.innerHTML, fills, inks, styles };
}

async function firstFrame(browser, url, colorScheme) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const frame = await page.evaluate(serialize);
  await context.close();
  return frame;
}

function rules({ fills, inks, styles }, dark) {
  const lines = [
    '/* index.html\u2019s prerendered first stage (scripts/prerender-page.mjs) */',
    '.pr-fills { display: flex; }',
    '.pr-fills > i { flex: 1 1 0; }',
    ...styles.map((text, k) => `.ps-${k} { ${text}; }`),
    ...fills.map((colour, k) => `.pf-${k} { background: ${colour}; }`),
    ...inks.map((colour, k) => `.pt-${k} { color: ${colour}; }`),
    '@media (prefers-color-scheme: dark) {',
    ...dark.styles.flatMap((text, k) => (text === styles[k] ? [] : [`  .ps-${k} { ${text}; }`])),
    ...dark.fills.map((colour, k) => `  .pf-${k} { background: ${colour}; }`),
    ...dark.inks.map((colour, k) => `  .pt-${k} { color: ${colour}; }`),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes index.html's first stage into dist/index.html and its rules into the page's CSS. */
export async function prerenderPage(dist) {
  const server = await startServer({ root: dist });
  const browser = await launchChromium();
  try {
    const url = `${server.url}index.html`;
    const light = await firstFrame(browser, url, 'light');
    const dark = await firstFrame(browser, url, 'dark');
    if (light.html !== dark.html)
      throw new Error('prerender: the light and the dark first frames differ in more than their colours');
    const file = path.join(dist, 'index.html');
    const page = readFileSync(file, 'utf8');
    const app = /<div id="app">[\s\S]*?<\/div>(?=\s*<footer)/;
    if (!app.test(page)) throw new Error('prerender: no <div id="app"> before the footer in index.html');
    writeFileSync(
      file,
      page.replace(app, () => `<div id="app">${light.html}</div>`),
    );
    const css = path.join(dist, 'attention-stepper-page.css');
    writeFileSync(css, readFileSync(css, 'utf8') + rules(light, dark));
    return { bytes: light.html.length, fills: light.fills.length, styles: light.styles.length };
  } finally {
    await browser.close();
    await server.close();
  }
}
