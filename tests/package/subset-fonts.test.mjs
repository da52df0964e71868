// The font subsetter (scripts/subset-fonts.mjs) on KaTeX's own CSS, fonts and HTML: which face
// draws each character, read from KaTeX's rules (nested classes, delimiters built of pieces), and
// the WOFF2 faces it writes: each holds every character its unicode-range names, a
// character in one face only, and KaTeX's zero-width space in none.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Blob, Face } from 'harfbuzzjs';
import katex from 'katex';
import subsetFont from 'subset-font';
import { charsByFace, readKatexCss, subsetFonts } from '../../scripts/subset-fonts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const katexDir = path.join(root, 'node_modules', 'katex', 'dist');
const css = readFileSync(path.join(katexDir, 'katex.min.css'), 'utf8');
const out = mkdtempSync(path.join(tmpdir(), 'subset-fonts-'));

after(() => rmSync(out, { recursive: true, force: true }));

const html = (tex) => katex.renderToString(tex, { displayMode: true });
// { 'KaTeX_Main-Regular': 'characters', … } for these formulas.
function drawn(...texs) {
  const used = charsByFace(texs.map(html), readKatexCss(css));
  return Object.fromEntries(
    [...used].map(([face, chars]) => [face.file, String.fromCodePoint(...[...chars].sort((a, b) => a - b))]),
  );
}

test("KaTeX's CSS: every @font-face is read, and every font-family rule names one of them", () => {
  const { faces, rules } = readKatexCss(css);
  assert.equal(faces.length, readdirSync(path.join(katexDir, 'fonts')).filter((f) => f.endsWith('.woff2')).length);
  for (const face of faces) assert.ok(readFileSync(path.join(katexDir, 'fonts', `${face.file}.ttf`)).length > 0);
  const families = new Set(faces.map((f) => f.family));
  const named = rules.filter((r) => r.set.family);
  assert.ok(named.length >= 20, `${named.length} rules set a font-family`);
  for (const { set } of named) assert.ok(families.has(set.family) || set.family === 'serif', set.family);
});

test('which face draws what: classes, their nesting, sized and stacked delimiters', () => {
  assert.deepEqual(drawn('x \\mathbb{R}'), {
    'KaTeX_Math-Italic': 'x',
    'KaTeX_AMS-Regular': 'R',
  });
  // The innermost class sets the style, an outer one the weight: both count.
  assert.deepEqual(drawn('\\textbf{\\textit{b}}'), { 'KaTeX_Main-BoldItalic': 'b' });
  assert.deepEqual(drawn('\\boldsymbol{x} \\mathbf{B} \\mathrm{r}'), {
    'KaTeX_Math-BoldItalic': 'x',
    'KaTeX_Main-Bold': 'B',
    'KaTeX_Main-Regular': 'r',
  });
  assert.deepEqual(drawn('\\mathsf{s}\\mathcal{C}\\mathtt{t}'), {
    'KaTeX_SansSerif-Regular': 's',
    'KaTeX_Caligraphic-Regular': 'C',
    'KaTeX_Typewriter-Regular': 't',
  });
  assert.deepEqual(drawn('\\Big(\\sum\\Big)'), { 'KaTeX_Size2-Regular': '()∑' });
  // A tall brace is stacked from pieces (.delimsizing.mult .delim-size4 > span).
  const tall = drawn('\\left\\{\\begin{matrix}1\\\\2\\\\3\\\\4\\\\5\\\\6\\end{matrix}\\right.');
  assert.equal(tall['KaTeX_Size4-Regular'], '⎧⎨⎩');
  assert.equal(tall['KaTeX_Main-Regular'], '123456\u200b');
});

async function unicodesOf(woff2) {
  const ttf = await subsetFont(woff2, null, { keepAllGlyphs: true, targetFormat: 'truetype' });
  return [...new Face(new Blob(ttf)).collectUnicodes()].sort((a, b) => a - b);
}

const rangeOf = (rule) =>
  /unicode-range:([^;}]*)/
    .exec(rule)[1]
    .split(',')
    .map((u) => parseInt(u.replace(/^U\+/, ''), 16));

test('the faces: WOFF2 holding what their unicode-range says, first and later apart, no zero-width space', async () => {
  const first = [html('Q_i = X\\,W_i^Q'), html('X \\in \\mathbb{R}^{T \\times d}')];
  const later = [html('A = \\frac{e^{S}}{\\sum_k e^{S_k}}, \\quad X')];
  const result = await subsetFonts({ first, later }, css, path.join(katexDir, 'fonts'), out);
  assert.deepEqual(result.first, [
    'KaTeX_Math-Italic.subset.woff2',
    'KaTeX_Main-Regular.subset.woff2',
    'KaTeX_AMS-Regular.subset.woff2',
  ]);
  assert.deepEqual(result.firstFonts[0], { family: 'KaTeX_Math', style: 'italic', weight: 'normal', text: 'QTWXdi' });
  const faces = result.css.match(/@font-face\{[^}]*\}/g);
  assert.deepEqual(readdirSync(out).sort(), faces.map((f) => /url\(fonts\/([^)]+)\)/.exec(f)[1]).sort());
  const seen = new Map();
  for (const rule of faces) {
    const file = /url\(fonts\/([^)]+)\)/.exec(rule)[1];
    const bytes = readFileSync(path.join(out, file));
    assert.equal(bytes.toString('latin1', 0, 4), 'wOF2', file);
    const range = rangeOf(rule);
    // hb-subset also keeps a character's mirror image (its bidi closure: ∋ with ∈), outside the range.
    const has = await unicodesOf(bytes);
    assert.deepEqual(
      range.filter((c) => !has.includes(c)),
      [],
      `${file}: holds every character of its unicode-range`,
    );
    assert.ok(!range.includes(0x200b), `${file}: no zero-width space`);
    const family = /font-family:([^;]+)/.exec(rule)[1];
    for (const c of range) {
      assert.ok(!seen.has(`${family} ${c}`), `${file}: U+${c.toString(16)} also in ${seen.get(`${family} ${c}`)}`);
      seen.set(`${family} ${c}`, file);
    }
  }
  assert.match(result.css, /\.katex \.vlist-s\{font-family:serif\}/);
});
