// Small copies of KaTeX's fonts holding only the glyphs the prerendered formulas use, declared
// after KaTeX's own @font-face rules with a unicode-range: a browser then fetches the small face
// for those characters and the whole font only for a character outside the range (an
// explain-a-number line, a formula the build did not meet). Which face draws a character is read
// from KaTeX's own CSS (its rules that set font-family, -style or -weight, and its @font-face
// rules), so a KaTeX upgrade brings its own map; HarfBuzz's hb-subset (subset-font) makes the
// WOFF2 files, without hinting.
// Two faces a font: the glyphs of the first formulas (those a first view shows), and the others'
// glyphs in a later face, which the first paint does not wait for (unicode-range: a browser
// fetches a face only for characters it draws); web/typeset.js fetches the later faces after it.
//   await subsetFonts({ first, later }, katexCss, fontsDir, outDir) → { css, first, firstFonts }
//   (see below); first, later: the prerendered formulas' HTML
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Blob, Face } from 'harfbuzzjs';
import subsetFont from 'subset-font';

// KaTeX puts a zero-width space in every vlist (.vlist-s, a Safari fix) and none of its fonts has
// a glyph for it, so a browser looks for one in the whole font (fetching it) and then draws it in
// a fallback font. This rule sends it to that fallback font at once.
const ZERO_WIDTH_RULE = '.katex .vlist-s{font-family:serif}';

// --- KaTeX's CSS: which face draws a character ---

const declarations = (body) =>
  Object.fromEntries(
    body
      .split(';')
      .map((d) => d.split(':'))
      .filter((d) => d.length > 1)
      .map(([name, ...value]) => [name.trim(), value.join(':').trim()]),
  );
const firstFamily = (value) =>
  value
    .split(',')[0]
    .trim()
    .replace(/^["']|["']$/g, '');
const styleOf = (value = '') => (/italic|oblique/.test(value) ? 'italic' : 'normal');
const weightOf = (value = '') => (/bold|[6-9]00/.test(value) ? 'bold' : 'normal');

// What a rule sets of { family, style, weight }; the font shorthand sets all three.
function fontOf(d) {
  const set = {};
  const [, before, families] = (d.font && /^(.*?)[\d.]+(?:[a-z]+|%)(?:\/\S+)?\s+(.+)$/.exec(d.font)) || [];
  if (families) Object.assign(set, { family: firstFamily(families), style: styleOf(before), weight: weightOf(before) });
  if (d['font-family']) set.family = firstFamily(d['font-family']);
  if (d['font-style']) set.style = styleOf(d['font-style']);
  if (d['font-weight']) set.weight = weightOf(d['font-weight']);
  return set;
}

// '.katex .delimsizing.mult .delim-size1>span' → [{ tag, classes, child }], outermost first
// (child: the element must be the previous one's child); null for what this does not read.
function parseSelector(text) {
  const out = [];
  let child = false;
  for (const part of text
    .trim()
    .replace(/\s*>\s*/g, ' > ')
    .split(/\s+/)) {
    if (part === '>') child = true;
    else {
      const m = /^([a-z]*)((?:\.[\w-]+)*)$/i.exec(part);
      if (!m || !(m[1] || m[2])) return null;
      out.push({ tag: m[1].toLowerCase(), classes: m[2].split('.').filter(Boolean), child });
      child = false;
    }
  }
  return out;
}

/** KaTeX's CSS → { faces: [{ family, style, weight, file }] (file: e.g. KaTeX_Main-Regular),
 *  rules: [{ selector, set }] in cascade order (specificity, then source order) }. */
export function readKatexCss(css) {
  const faces = [];
  const rules = [];
  for (const [, prelude, body] of css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const d = declarations(body);
    if (prelude.trim() === '@font-face') {
      const file = /url\(["']?(?:[^)"']*\/)?([\w-]+)\.woff2/.exec(d.src ?? '')?.[1];
      const [style, weight] = [styleOf(d['font-style']), weightOf(d['font-weight'])];
      if (file) faces.push({ family: firstFamily(d['font-family']), style, weight, file });
      continue;
    }
    const set = fontOf(d);
    if (prelude.trim().startsWith('@') || !Object.keys(set).length) continue;
    for (const selector of prelude.split(',').map(parseSelector).filter(Boolean)) rules.push({ selector, set });
  }
  const rank = ({ selector }) => selector.reduce((n, c) => n + 100 * c.classes.length + (c.tag ? 1 : 0), 0);
  return { faces, rules: rules.map((r, i) => ({ ...r, i })).sort((a, b) => rank(a) - rank(b) || a.i - b.i) };
}

const fits = (c, el) => (!c.tag || c.tag === el.tag) && c.classes.every((n) => el.classes.includes(n));

// Whether selector (from its compound k) matches stack[i], stack: the open elements, outermost first.
function matches(selector, stack, i = stack.length - 1, k = selector.length - 1) {
  if (!fits(selector[k], stack[i])) return false;
  if (k === 0) return true;
  if (selector[k].child) return i > 0 && matches(selector, stack, i - 1, k - 1);
  for (let j = i - 1; j >= 0; j -= 1) if (matches(selector, stack, j, k - 1)) return true;
  return false;
}

// The face a browser picks for { family, style, weight }: same style first, then same weight.
function faceFor({ family, style, weight }, faces) {
  const ofFamily = faces.filter((f) => f.family === family);
  const pool = ofFamily.some((f) => f.style === style) ? ofFamily.filter((f) => f.style === style) : ofFamily;
  return pool.find((f) => f.weight === weight) ?? pool[0];
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (text) =>
  text.replace(/&(#x[\da-f]+|#\d+|\w+);/gi, (all, e) =>
    e[0] !== '#' ? (ENTITIES[e] ?? all) : String.fromCodePoint(Number(e[1] === 'x' ? `0${e.slice(1)}` : e.slice(1))),
  );

/** The characters each face draws in KaTeX's HTML (the MathML part is for screen readers), as
 *  Map(face → Set of code points); katex: readKatexCss's answer (its faces are the keys). */
export function charsByFace(htmls, { faces, rules }) {
  const used = new Map();
  for (const html of htmls) {
    const visible = html.replace(/<span class="katex-mathml">[\s\S]*?<\/math><\/span>/g, '');
    const stack = [{ tag: '', classes: [], font: {} }];
    for (const token of visible.match(/<[^>]+>|[^<]+/g) ?? []) {
      if (token.startsWith('</')) stack.pop();
      else if (token.startsWith('<')) {
        if (token.endsWith('/>') || /^<(br|img|path|line)\b/.test(token)) continue;
        const el = { tag: /^<([\w-]+)/.exec(token)[1].toLowerCase(), font: { ...stack.at(-1).font } };
        el.classes = (/class="([^"]*)"/.exec(token)?.[1] ?? '').split(/\s+/).filter(Boolean);
        stack.push(el);
        for (const { selector, set } of rules) if (matches(selector, stack)) Object.assign(el.font, set);
      } else {
        const face = faceFor(stack.at(-1).font, faces);
        if (!face) continue; // not a KaTeX font
        if (!used.has(face)) used.set(face, new Set());
        for (const ch of decode(token)) used.get(face).add(ch.codePointAt(0));
      }
    }
  }
  return used;
}

// --- the faces ---

const hex = (c) => c.toString(16).toUpperCase();

// One face: <file>.<suffix>.woff2 in outDir with these code points → its @font-face rule.
async function face({ family, style, weight, file }, ttf, codes, suffix, outDir) {
  const name = `${file}.${suffix}.woff2`;
  const text = String.fromCodePoint(...codes);
  writeFileSync(path.join(outDir, name), await subsetFont(ttf, text, { targetFormat: 'woff2', noHinting: true }));
  return (
    `@font-face{font-family:${family};src:url(fonts/${name}) format("woff2");` +
    `font-weight:${weight};font-style:${style};unicode-range:${codes.map((c) => `U+${hex(c)}`).join(',')}}`
  );
}

/**
 * Writes <font>.subset.woff2 (the first formulas' glyphs) and <font>.later.woff2 (the other
 * formulas' glyphs) for each of KaTeX's fonts they use (KaTeX_Main-Regular, …; from its TrueType
 * files in fontsDir) into outDir, beside KaTeX's fonts → { css: the rules to append to KaTeX's CSS,
 * first: the .subset.woff2 files, firstFonts: [{ family, style, weight, text }]: the first faces'
 * descriptors and characters }. A face holds only characters its font has (for another the
 * browser goes on to the whole font, as it would anyway), and a character is in one face only.
 */
export async function subsetFonts({ first, later }, katexCss, fontsDir, outDir) {
  const katex = readKatexCss(katexCss + ZERO_WIDTH_RULE);
  const rules = [ZERO_WIDTH_RULE];
  const firstFiles = [];
  const firstFonts = [];
  const firstChars = charsByFace(first, katex);
  for (const [font, chars] of charsByFace([...first, ...later], katex)) {
    const ttf = readFileSync(path.join(fontsDir, `${font.file}.ttf`));
    const has = new Set(new Face(new Blob(ttf)).collectUnicodes());
    const early = [...(firstChars.get(font) ?? [])].filter((c) => has.has(c)).sort((a, b) => a - b);
    const rest = [...chars].filter((c) => has.has(c) && !early.includes(c)).sort((a, b) => a - b);
    if (rest.length) rules.push(await face(font, ttf, rest, 'later', outDir));
    if (!early.length) continue;
    rules.push(await face(font, ttf, early, 'subset', outDir));
    firstFiles.push(`${font.file}.subset.woff2`);
    const { family, style, weight } = font;
    firstFonts.push({ family, style, weight, text: String.fromCodePoint(...early) });
  }
  return { css: rules.join(''), first: firstFiles, firstFonts };
}
