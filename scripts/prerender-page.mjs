// Part of the page build (scripts/build-page.mjs): the first stage of index.html and of embed.html
// and the shipped run of training.html,
// painted by the page itself in headless Chromium and written into dist/ as static markup, so that
// a phone paints it before any script or WebAssembly arrives (issue 36). The page (web/main.js) and
// the element (element/attention-stepper.js) then mount in one task over the same markup, and
// nothing moves.
//
// The markup is the stepper as the page holds it once everything is in (the engine's rest, KaTeX
// and the later script: the live page mounts only then), serialized by web/element/prerender.js
// (builder.html's snippets use the same): the form's values as attributes, and what the strict CSP
// would refuse turned into CSS. index.html's rules are appended to dist/attention-stepper-page.css,
// which it already loads; embed.html's go into dist/attention-stepper-embed-first.css (see
// EMBED_SHEETS).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';
import {
  formulaFaces,
  prerenderRules,
  sameButColours,
  serializeStepper,
  shareClasses,
} from '../web/element/prerender.js';

// In the page: what is drawn (index.html's #app, embed.html's element's .as-root, training.html's
// main), serialized.
const ROOTS = {
  page: "document.getElementById('app')",
  element: "document.querySelector('attention-stepper').shadowRoot.querySelector('.as-root')",
  training: "document.querySelector('main.training')",
};
const serializeIn = (where) => `(${serializeStepper})(${ROOTS[where]}, ${where === 'element'})`;

// In the page: the font files its formulas are set in (css: KaTeX's sheet as the build wrote it).
const facesIn = (where, css) => `(${formulaFaces})(${ROOTS[where]}, ${JSON.stringify(css)})`;

// The markup of one page in both schemes, the same but for the colours its rules give.
async function frames(browser, url, where, katex = null) {
  const frame = async (colorScheme) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector(
      where === 'element' ? 'attention-stepper[data-ready="true"]' : 'body[data-ready="true"]',
    );
    // The stepper is ready once its first view is drawn: its later views may still be coming
    // (training.html's bundle has them all).
    if (where !== 'training') await page.waitForFunction(() => window.attentionStepperLater !== undefined);
    // training.html's checkpoint stepper, far below its first screen, is drawn by the page: as
    // markup it would triple the page's bytes.
    if (where === 'training') await page.evaluate(() => document.getElementById('training-stepper').replaceChildren());
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const shown = await page.evaluate(serializeIn(where));
    // The font files its formulas are set in, to preload with the markup (training.html's; the
    // others' first script preloads theirs).
    if (katex) shown.fonts = await page.evaluate(facesIn(where, katex));
    await context.close();
    return shown;
  };
  const [light, dark] = [await frame('light'), await frame('dark')];
  if (!sameButColours(light, dark))
    throw new Error(`prerender ${url}: the light and the dark first frames differ in more than their colours`);
  const [shared, sharedDark] = shareClasses(light, dark);
  return [{ ...shared, fonts: light.fonts }, sharedDark];
}

const rules = (page, light, dark) =>
  prerenderRules(`${page}\u2019s prerendered first stage (scripts/prerender-page.mjs)`, light, dark);

// embed.html's element, its first stage in a declarative shadow root: painted before any script,
// kept by the element until its live stage replaces it (element/attention-stepper.js). Its styles
// are linked in the document too, where they block the first paint, so that the shadow root's
// links find them loaded.
const EMBED_SHEETS = ['vendor/katex/katex.min.css', 'attention-stepper.css', 'attention-stepper-embed-first.css'];

function embedMarkup(html) {
  const links = EMBED_SHEETS.map((href) => `<link rel="stylesheet" href="${href}">`).join('');
  return (
    // theme-auto: the class the element gives itself, which its dark scheme's rules name.
    '<attention-stepper controls="compact" class="theme-auto"><template shadowrootmode="open">' +
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
    const [light, dark] = await frames(browser, `${server.url}index.html`, 'page');
    rewrite(
      dist,
      'index.html',
      /<div id="app">[\s\S]*?<\/div>(?=\s*<footer)/,
      () => `<div id="app">${light.html}</div>`,
    );
    const css = path.join(dist, 'attention-stepper-page.css');
    writeFileSync(css, readFileSync(css, 'utf8') + rules('index.html', light, dark));
    const [embedLight, embedDark] = await frames(browser, `${server.url}embed.html`, 'element');
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
    // training.html: the shipped run as the page draws it (charts, table, heads, the checkpoint's
    // stepper); its rules go into its own stylesheet.
    const katex = readFileSync(path.join(dist, 'vendor/katex/katex.min.css'), 'utf8');
    const [trainingLight, trainingDark] = await frames(browser, `${server.url}training.html`, 'training', katex);
    rewrite(
      dist,
      'training.html',
      /<main class="training">[\s\S]*<\/main>/,
      () => `<main class="training">${trainingLight.html}</main>`,
    );
    const preloads = trainingLight.fonts.map(
      (url) => `<link rel="preload" as="font" type="font/woff2" crossorigin href="vendor/katex/${url}">`,
    );
    rewrite(dist, 'training.html', /<link rel="stylesheet" href="vendor\/katex\/katex.min.css">/, (link) =>
      [link, ...preloads].join('\n  '),
    );
    const trainingCss = path.join(dist, 'attention-stepper-training.css');
    writeFileSync(trainingCss, readFileSync(trainingCss, 'utf8') + rules('training.html', trainingLight, trainingDark));
    return {
      bytes: light.html.length,
      fills: light.fills.length,
      embedBytes: embedLight.html.length,
      trainingBytes: trainingLight.html.length,
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
