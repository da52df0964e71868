// A stepper's first stage as static markup (issue 36): what the build writes into index.html and
// embed.html (scripts/prerender-page.mjs) and what builder.html puts into a snippet as the
// element's fallback. The markup is the stepper as it is drawn, the form's values as attributes,
// and what a strict CSP would refuse as inline styles turned into rules:
//   - each heatmap cell's fill (its background colour) → a class with that colour, in the light and
//     in the dark scheme;
//   - each canvas (a head overview, arcs) → an empty span with its classes;
//   - each row's text strip (runs of cells inked for contrast on their fills) → one span a cell,
//     with a class for its ink in either scheme;
//   - every style attribute (custom properties such as --cols, widths, a legend's gradient) → a
//     class with the same declarations in either scheme, !important to keep an inline style's
//     precedence.

/**
 * The markup of a drawn stepper (index.html's #app, an element's .as-root) →
 * { html, fills, inks, styles }: the classes' colours and declarations in their order.
 * Self-contained (no name from outside it): Playwright sends its source to the page.
 */
export function serializeStepper(app, inElement) {
  const clone = app.cloneNode(true);
  // What the form holds lives in properties: as attributes, so that the markup shows it.
  const fields = [...app.querySelectorAll('input, option')];
  [...clone.querySelectorAll('input, option')].forEach((copy, k) => {
    const field = fields[k];
    if (field.tagName === 'OPTION') copy.toggleAttribute('selected', field.selected);
    else if (field.type === 'checkbox' || field.type === 'radio') copy.toggleAttribute('checked', field.checked);
    else copy.setAttribute('value', field.value);
  });
  for (const canvas of clone.querySelectorAll('canvas')) {
    const span = document.createElement('span');
    span.className = `${canvas.className} pr-canvas`;
    span.setAttribute('aria-hidden', 'true');
    canvas.replaceWith(span);
  }
  const fills = [];
  for (const cell of clone.querySelectorAll('td.hm-cell[style]')) {
    const colour = cell.style.backgroundColor;
    if (!colour) continue;
    cell.classList.add(`pf-${fills.length}`);
    fills.push(colour);
    cell.style.removeProperty('background-color');
    if (!cell.style.length) cell.removeAttribute('style');
  }
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
  // Whether a matrix overflows its box, which the reader's width decides (views/dom.js marks it live).
  for (const node of clone.querySelectorAll('[data-more]')) node.removeAttribute('data-more');
  if (inElement) clone.removeAttribute('style'); // the height the element held: none yet
  return { html: clone.innerHTML, fills, inks, styles };
}

/** The rules of one prerendered stage, drawn in the light and in the dark scheme, as CSS text. */
export function prerenderRules(label, { fills, inks, styles }, dark) {
  const lines = [
    `/* ${label} */`,
    '.pr-canvas { display: flex; }',
    ...styles.map((text, k) => `.ps-${k} { ${text}; }`),
    ...fills.map((colour, k) => `.pf-${k} { background-color: ${colour} !important; }`),
    ...inks.map((colour, k) => `.pt-${k} { color: ${colour}; }`),
    '@media (prefers-color-scheme: dark) {',
    ...dark.styles.flatMap((text, k) => (text === styles[k] ? [] : [`  .ps-${k} { ${text}; }`])),
    ...dark.fills.map((colour, k) => `  .pf-${k} { background-color: ${colour} !important; }`),
    ...dark.inks.map((colour, k) => `  .pt-${k} { color: ${colour}; }`),
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** Whether two drawings of one stage differ in more than their colours (then no prerender). */
export const sameButColours = (light, dark) =>
  light.html === dark.html &&
  light.fills.length === dark.fills.length &&
  light.inks.length === dark.inks.length &&
  light.styles.length === dark.styles.length;

/**
 * The font files a drawn stage's formulas are set in (to preload them with its markup, so that
 * they are in when it is first laid out): for each character of each .katex-html text, the face
 * of css (KaTeX's sheet) of its family, style and weight declared last among those whose
 * unicode-range covers it (none: every character), as the browser picks. → the faces' url()s.
 * Self-contained, as serializeStepper.
 */
export function formulaFaces(root, css) {
  const WEIGHTS = { normal: '400', bold: '700' }; // font-weight as the computed style gives it
  const faces = [...css.matchAll(/@font-face\s*\{([^}]*)\}/g)].map(([, body]) => {
    const prop = (name) => new RegExp(`${name}\\s*:\\s*([^;]*)`).exec(body)?.[1].trim();
    const weight = prop('font-weight') ?? 'normal';
    const ranges = (prop('unicode-range') ?? 'U+0-10FFFF').split(',').map((r) => {
      const [from, to = from] = r.trim().replace(/^U\+/i, '').split('-');
      return [parseInt(from, 16), parseInt(to, 16)];
    });
    return {
      family: prop('font-family').replace(/["']/g, ''),
      style: prop('font-style') ?? 'normal',
      weight: WEIGHTS[weight] ?? weight,
      covers: (c) => ranges.some(([from, to]) => c >= from && c <= to),
      url: /url\(["']?([^)"']*)["']?\)/.exec(body)[1],
    };
  });
  const used = new Set();
  for (const formula of root.querySelectorAll('.katex-html')) {
    const walker = document.createTreeWalker(formula, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const style = getComputedStyle(walker.currentNode.parentElement);
      const family = style.fontFamily.split(',')[0].trim().replace(/["']/g, '');
      const mine = faces.filter(
        (f) => f.family === family && f.style === style.fontStyle && f.weight === style.fontWeight,
      );
      for (const char of walker.currentNode.textContent) {
        const face = mine.findLast((f) => f.covers(char.codePointAt(0)));
        if (face) used.add(face.url);
      }
    }
  }
  return [...used];
}

/**
 * One class for each distinct colour or declaration (in both schemes at once) instead of one per
 * cell: the drawings of one stage in the light and the dark scheme (sameButColours) →
 * [light, dark] with their classes renumbered and merged, the html rewritten to match.
 */
export function shareClasses(light, dark) {
  const renumber = { f: 'fills', t: 'inks', s: 'styles' };
  const maps = {};
  const out = [0, 1].map(() => ({ html: '', fills: [], inks: [], styles: [] }));
  for (const [letter, key] of Object.entries(renumber)) {
    const seen = new Map(); // "light\ndark" → new index
    maps[letter] = light[key].map((value, k) => {
      const pair = `${value}\n${dark[key][k]}`;
      if (!seen.has(pair)) {
        seen.set(pair, seen.size);
        out[0][key].push(value);
        out[1][key].push(dark[key][k]);
      }
      return seen.get(pair);
    });
  }
  const html = light.html.replace(/ class="([^"]*)"/g, (_, names) => {
    const renamed = names.replace(/\bp([fts])-(\d+)\b/g, (__, letter, k) => `p${letter}-${maps[letter][Number(k)]}`);
    return ` class="${renamed}"`;
  });
  out[0].html = out[1].html = html;
  return out;
}
