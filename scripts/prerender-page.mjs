// Part of the page build (scripts/build-page.mjs): the first stage of index.html and of embed.html,
// painted by the page itself in headless Chromium and written into dist/ as static markup, so that
// a phone paints it before any script or WebAssembly arrives (issue 36). The page (web/main.js) and
// the element (element/attention-stepper.js) then mount in one task over the same markup, and
// nothing moves.
//
// The markup is the stepper as the page holds it once everything is in (the engine's rest, KaTeX
// and the later script: the live page mounts only then), the form's values as attributes, and what
// the strict CSP would refuse turned into CSS:
//   - each heatmap row's fills canvas (one pixel a cell) → a strip of <i>, one a cell, each with
//     a class whose colour is the canvas's pixel, in the light and in the dark scheme;
//   - each row's text strip (runs of cells inked for contrast on their fills) → one span a cell,
//     with a class for its ink in either scheme;
//   - every style attribute (custom properties such as --cols, widths, a legend's gradient) → a
//     class with the same declarations in either scheme, !important to keep an inline style's
//     precedence.
// index.html's rules are appended to dist/attention-stepper-page.css, which it already loads;
// embed.html's go into dist/attention-stepper-embed-first.css (see EMBED_SHEETS).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

// In the page: the stepper's markup (index.html's #app, embed.html's element's shadow root), its
// fills' and inks' colours and its inline styles.
function serialize(inElement) {
  const app = inElement
    ? document.querySelector('attention-stepper').shadowRoot.querySelector('.as-root')
    : document.getElementById('app');
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
  if (inElement) clone.removeAttribute('style'); // the height the element held: none yet
  return { html: clone.innerHTML, fills, inks, styles };
}

// The markup of one page in both schemes, the same but for the colours its rules give.
async function frames(browser, url, inElement) {
  const frame = async (colorScheme) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector(inElement ? 'attention-stepper[data-ready="true"]' : 'body[data-ready="true"]');
    // The element is ready once its first view is drawn: its later views may still be coming.
    await page.waitForFunction(() => window.attentionStepperLater !== undefined);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const shown = await page.evaluate(serialize, inElement);
    await context.close();
    return shown;
  };
  const [light, dark] = [await frame('light'), await frame('dark')];
  if (light.html !== dark.html)
    throw new Error(`prerender ${url}: the light and the dark first frames differ in more than their colours`);
  return [light, dark];
}

function rules(page, { fills, inks, styles }, dark) {
  const lines = [
    `/* ${page}\u2019s prerendered first stage (scripts/prerender-page.mjs) */`,
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

// embed.html's element, its first stage in a declarative shadow root: painted before any script,
// kept by the element until its live stage replaces it (element/attention-stepper.js). Its styles
// are linked in the document too, where they block the first paint, so that the shadow root's
// links find them loaded.
const EMBED_SHEETS = ['vendor/katex/katex.min.css', 'attention-stepper.css', 'attention-stepper-embed-first.css'];

function embedMarkup(html) {
  const links = EMBED_SHEETS.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
  return (
    '<attention-stepper controls="compact"><template shadowrootmode="open">' +
    `${links}<div class="as-root">${html}</div></template></attention-stepper>`
  );
}

// Replaces the one match of `pattern` in dist/`file` by what `make` returns.
function rewrite(dist, file, pattern, make) {
  const where = path.join(dist, file);
  const text = readFileSync(where, 'utf8');
  if (!pattern.test(text)) throw new Error(`prerender: ${pattern} not found in ${file}`);
  writeFileSync(where, text.replace(pattern, make));
}

/** Writes the first stage of index.html and of embed.html into them, and their rules into CSS. */
export async function prerenderPage(dist) {
  const server = await startServer({ root: dist });
  const browser = await launchChromium();
  try {
    const [light, dark] = await frames(browser, `${server.url}index.html`, false);
    rewrite(
      dist,
      'index.html',
      /<div id="app">[\s\S]*?<\/div>(?=\s*<footer)/,
      () => `<div id="app">${light.html}</div>`,
    );
    const css = path.join(dist, 'attention-stepper-page.css');
    writeFileSync(css, readFileSync(css, 'utf8') + rules('index.html', light, dark));
    const [embedLight, embedDark] = await frames(browser, `${server.url}embed.html`, true);
    writeFileSync(path.join(dist, EMBED_SHEETS[2]), rules('embed.html', embedLight, embedDark));
    rewrite(
      dist,
      'embed.html',
      /<main id="embed"><\/main>/,
      () => `<main id="embed">${embedMarkup(embedLight.html)}</main>`,
    );
    const head = EMBED_SHEETS.map((href) => `<link rel="stylesheet" href="${href}">`).join('\n  ');
    rewrite(
      dist,
      'embed.html',
      /<link rel="stylesheet" href="styles\/embed-page.css">/,
      (link) => `${link}\n  ${head}`,
    );
    return { bytes: light.html.length, fills: light.fills.length, embedBytes: embedLight.html.length };
  } finally {
    await browser.close();
    await server.close();
  }
}
