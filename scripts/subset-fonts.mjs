// Small copies of KaTeX's fonts holding only the glyphs the prerendered formulas use, declared
// after KaTeX's own @font-face rules with a unicode-range: a browser then fetches the small face
// for those characters and the whole font only for a character outside the range (an
// explain-a-number line, a formula the build did not meet). Made from KaTeX's TrueType files:
// glyphs not kept are emptied (glyph ids, metrics and cmap stay as they are, so nothing else
// changes), glyph names dropped (post 3.0), and the result wrapped as WOFF 2.0 (brotli, no glyf transform).
// Two faces a font: the glyphs of the first formulas (those a first view shows), and the others'
// glyphs in a later face, which the first paint does not wait for (unicode-range: a browser
// fetches a face only for characters it draws); web/typeset.js fetches the later faces after it.
//   subsetFonts({ first, later }, fontsDir, outDir) → { css: the rules to append to katex.min.css,
//   first: the first faces' file names }; first, later: the prerendered formulas' HTML
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

// KaTeX's classes that choose a font (katex.css), innermost wins; everything else is KaTeX_Main.
// sizeN names a font only on a delimiter (elsewhere it scales the text).
const CLASS_FONTS = [
  ['mathnormal', 'Math-Italic'],
  ['boldsymbol', 'Math-BoldItalic'],
  ['mathbb', 'AMS-Regular'],
  ['amsrm', 'AMS-Regular'],
  ['textbb', 'AMS-Regular'],
  ['mathbf', 'Main-Bold'],
  ['textbf', 'Main-Bold'],
  ['mathit', 'Main-Italic'],
  ['textit', 'Main-Italic'],
  ['mathrm', 'Main-Regular'],
  ['textrm', 'Main-Regular'],
  ['large-op', 'Size2-Regular'],
  ['small-op', 'Size1-Regular'],
];
const FAMILY = (font) => {
  const [family, style] = font.split('-');
  return {
    family: `KaTeX_${family}`,
    weight: /Bold/.test(style) ? 'bold' : 'normal',
    style: /Italic/.test(style) ? 'italic' : 'normal',
  };
};

function fontOf(classes) {
  for (let i = classes.length - 1; i >= 0; i -= 1) {
    const names = classes[i].split(/\s+/);
    const size = names.includes('delimsizing') && names.find((n) => /^size[1-4]$/.test(n));
    if (size) return `Size${size.slice(4)}-Regular`;
    const hit = CLASS_FONTS.find(([c]) => names.includes(c));
    if (hit) return hit[1];
  }
  return 'Main-Regular';
}

// Characters each font draws in KaTeX's HTML (the MathML part is for screen readers).
export function charsByFont(htmls) {
  const used = new Map();
  for (const html of htmls) {
    const visible = html.replace(/<span class="katex-mathml">[\s\S]*?<\/math><\/span>/g, '');
    const stack = [];
    for (const token of visible.match(/<[^>]+>|[^<]+/g) ?? []) {
      if (token.startsWith('</')) stack.pop();
      else if (token.startsWith('<')) {
        if (!token.endsWith('/>') && !/^<(br|img|path|line)\b/.test(token))
          stack.push(/class="([^"]*)"/.exec(token)?.[1] ?? '');
      } else {
        const text = token
          .replace(/&amp;/g, '&')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&#x27;/g, "'")
          .replace(/&quot;/g, '"');
        const font = fontOf(stack);
        if (!used.has(font)) used.set(font, new Set());
        for (const ch of text) used.get(font).add(ch.codePointAt(0));
      }
    }
  }
  return used;
}

// --- TrueType ---

export function tables(buf) {
  const count = buf.readUInt16BE(4);
  const out = new Map();
  for (let i = 0; i < count; i += 1) {
    const at = 12 + 16 * i;
    out.set(
      buf.toString('latin1', at, at + 4),
      buf.subarray(buf.readUInt32BE(at + 8), buf.readUInt32BE(at + 8) + buf.readUInt32BE(at + 12)),
    );
  }
  return out;
}

// Code point → glyph id from the (3, 1) format-4 cmap.
export function cmapGlyphs(cmap) {
  const count = cmap.readUInt16BE(2);
  for (let i = 0; i < count; i += 1) {
    const [platform, encoding, offset] = [
      cmap.readUInt16BE(4 + 8 * i),
      cmap.readUInt16BE(6 + 8 * i),
      cmap.readUInt32BE(8 + 8 * i),
    ];
    if (platform !== 3 || encoding !== 1 || cmap.readUInt16BE(offset) !== 4) continue;
    const t = cmap.subarray(offset);
    const segs = t.readUInt16BE(6) / 2;
    const map = new Map();
    for (let s = 0; s < segs; s += 1) {
      const end = t.readUInt16BE(14 + 2 * s);
      const start = t.readUInt16BE(16 + 2 * segs + 2 * s);
      const delta = t.readInt16BE(16 + 4 * segs + 2 * s);
      const rangeAt = 16 + 6 * segs + 2 * s;
      const range = t.readUInt16BE(rangeAt);
      for (let c = start; c <= end && c !== 0xffff; c += 1) {
        const g = range === 0 ? (c + delta) & 0xffff : t.readUInt16BE(rangeAt + range + 2 * (c - start));
        if (g) map.set(c, range === 0 ? g : (g + delta) & 0xffff);
      }
    }
    return map;
  }
  throw new Error('subset-fonts: no (3, 1) format-4 cmap');
}

function glyphRanges(head, loca, numGlyphs) {
  const long = head.readInt16BE(50) === 1;
  const at = (i) => (long ? loca.readUInt32BE(4 * i) : loca.readUInt16BE(2 * i) * 2);
  return Array.from({ length: numGlyphs }, (_, i) => [at(i), at(i + 1)]);
}

// A composite glyph's components: [offset of the glyph index, glyph index] (flags and
// arguments as the glyf table defines them), and where its instructions would follow.
function components(glyph) {
  const out = [];
  if (glyph.length < 10 || glyph.readInt16BE(0) >= 0) return { out, end: glyph.length, instructed: false };
  let at = 10;
  for (;;) {
    const flags = glyph.readUInt16BE(at);
    out.push([at + 2, glyph.readUInt16BE(at + 2)]);
    at += 4 + (flags & 1 ? 4 : 2) + (flags & 8 ? 2 : flags & 0x40 ? 4 : flags & 0x80 ? 8 : 0);
    if (!(flags & 0x20)) return { out, end: at, instructed: Boolean(flags & 0x100) };
  }
}

// One glyph without its hinting instructions (the subset drops fpgm, prep and cvt), its
// components renumbered.
function plainGlyph(data, renumber) {
  if (data.length === 0) return data;
  const contours = data.readInt16BE(0);
  if (contours >= 0) {
    const at = 10 + 2 * contours;
    const length = data.readUInt16BE(at);
    return Buffer.concat([data.subarray(0, at), Buffer.alloc(2), data.subarray(at + 2 + length)]);
  }
  const { out, end, instructed } = components(data);
  const copy = Buffer.from(data.subarray(0, end));
  for (const [at, g] of out) copy.writeUInt16BE(renumber.get(g), at);
  if (instructed) {
    const last = out.at(-1)[0] - 2;
    copy.writeUInt16BE(copy.readUInt16BE(last) & ~0x100, last);
  }
  return copy;
}

const pad4 = (b) => (b.length % 4 ? Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]) : b);

function checksum(b) {
  const p = pad4(b);
  let sum = 0;
  for (let i = 0; i < p.length; i += 4) sum = (sum + p.readUInt32BE(i)) >>> 0;
  return sum;
}

// A format-4 cmap (platform 3, encoding 1) with one segment per code point, and the closing one.
function cmapFor(pairs) {
  const segs = pairs.length + 1;
  const table = Buffer.alloc(12 + 16 + 8 * segs);
  table.writeUInt16BE(0, 0);
  table.writeUInt16BE(1, 2);
  table.writeUInt16BE(3, 4);
  table.writeUInt16BE(1, 6);
  table.writeUInt32BE(12, 8);
  const t = table.subarray(12);
  const search = 2 ** Math.floor(Math.log2(segs));
  [4, t.length, 0, 2 * segs, 2 * search, Math.log2(search), 2 * segs - 2 * search].forEach((v, i) =>
    t.writeUInt16BE(v, 2 * i),
  );
  const ends = 14;
  const starts = 16 + 2 * segs;
  const deltas = 16 + 4 * segs;
  [...pairs, [0xffff, 1]].forEach(([code, glyph], i) => {
    t.writeUInt16BE(code, ends + 2 * i);
    t.writeUInt16BE(code, starts + 2 * i);
    t.writeUInt16BE((glyph - code) & 0xffff, deltas + 2 * i);
  });
  return table;
}

// KaTeX puts a zero-width space in every vlist (.vlist-s, a Safari fix) and its fonts have no
// glyph for it: a face that lacks it sends the browser on to the whole font. Each subset maps it
// to an empty glyph of its own.
const ZERO_WIDTH = [0x200b];

/** TrueType bytes → a font with only the glyphs of these code points (and .notdef), renumbered;
 *  ZERO_WIDTH code points the font lacks get an empty glyph of no width. */
export function subsetTtf(ttf, codePoints) {
  const t = tables(ttf);
  const numGlyphs = t.get('maxp').readUInt16BE(4);
  const ranges = glyphRanges(t.get('head'), t.get('loca'), numGlyphs);
  const glyf = t.get('glyf');
  const cmap = cmapGlyphs(t.get('cmap'));
  const keep = new Set([0]);
  const queue = [...codePoints].map((c) => cmap.get(c)).filter((g) => g !== undefined);
  while (queue.length) {
    const g = queue.pop();
    if (keep.has(g)) continue;
    keep.add(g);
    queue.push(...components(glyf.subarray(...ranges[g])).out.map(([, c]) => c));
  }
  const blanks = ZERO_WIDTH.filter((c) => !cmap.has(c));
  const order = [...keep].sort((a, b) => a - b);
  const renumber = new Map(order.map((g, i) => [g, i]));
  const count = order.length + (blanks.length ? 1 : 0);
  const blankGlyph = order.length;
  const hhea = Buffer.from(t.get('hhea'));
  const oldMetrics = hhea.readUInt16BE(34);
  const oldHmtx = t.get('hmtx');
  const hmtx = Buffer.alloc(4 * count); // the blank glyph's advance and bearing stay 0
  const loca = Buffer.alloc(4 * (count + 1));
  const parts = [];
  let offset = 0;
  order.forEach((g, i) => {
    const m = Math.min(g, oldMetrics - 1);
    hmtx.writeUInt16BE(oldHmtx.readUInt16BE(4 * m), 4 * i);
    hmtx.writeInt16BE(
      g < oldMetrics ? oldHmtx.readInt16BE(4 * g + 2) : oldHmtx.readInt16BE(4 * oldMetrics + 2 * (g - oldMetrics)),
      4 * i + 2,
    );
    loca.writeUInt32BE(offset, 4 * i);
    const data = pad4(plainGlyph(glyf.subarray(...ranges[g]), renumber));
    parts.push(data);
    offset += data.length;
  });
  for (let g = order.length; g <= count; g += 1) loca.writeUInt32BE(offset, 4 * g); // the blank has no outline
  hhea.writeUInt16BE(count, 34);
  const maxp = Buffer.from(t.get('maxp'));
  maxp.writeUInt16BE(count, 4);
  const head = Buffer.from(t.get('head'));
  head.writeInt16BE(1, 50); // long loca
  head.writeUInt32BE(0, 8); // checkSumAdjustment: WOFF readers do not need it
  const post = Buffer.from(t.get('post').subarray(0, 32));
  post.writeUInt32BE(0x00030000, 0); // no glyph names
  const pairs = [
    ...[...codePoints].filter((c) => cmap.has(c)).map((c) => [c, renumber.get(cmap.get(c))]),
    ...blanks.map((c) => [c, blankGlyph]),
  ].sort((a, b) => a[0] - b[0]);
  return new Map([
    ['OS/2', t.get('OS/2')],
    ['cmap', cmapFor(pairs)],
    ['glyf', Buffer.concat(parts)],
    ['head', head],
    ['hhea', hhea],
    ['hmtx', hmtx],
    ['loca', loca],
    ['maxp', maxp],
    ['name', t.get('name')],
    ['post', post],
  ]);
}

// WOFF 2.0's known table tags (their index saves the tag's four bytes).
const KNOWN = ['cmap', 'head', 'hhea', 'hmtx', 'maxp', 'name', 'OS/2', 'post', 'cvt ', 'fpgm', 'glyf', 'loca', 'prep'];

function base128(n) {
  const bytes = [n & 0x7f];
  for (let v = n >>> 7; v > 0; v >>>= 7) bytes.unshift(0x80 | (v & 0x7f));
  return Buffer.from(bytes);
}

/** Tables → WOFF 2.0, every table stored as it is (glyf and loca with the null transform, 3). */
export function woff2(tablesMap, flavor = 0x00010000) {
  const tags = [...tablesMap.keys()].filter((t) => t !== 'loca').sort();
  tags.splice(tags.indexOf('glyf') + 1, 0, 'loca'); // loca follows glyf
  const directory = Buffer.concat(
    tags.map((tag) => {
      const known = KNOWN.indexOf(tag);
      const transform = tag === 'glyf' || tag === 'loca' ? 3 << 6 : 0;
      const flags = Buffer.from([(known < 0 ? 63 : known) | transform]);
      const name = known < 0 ? Buffer.from(tag, 'latin1') : Buffer.alloc(0);
      return Buffer.concat([flags, name, base128(tablesMap.get(tag).length)]);
    }),
  );
  const stream = Buffer.concat(tags.map((tag) => tablesMap.get(tag)));
  const packed = brotliCompressSync(stream, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_FONT,
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: stream.length,
    },
  });
  const sfntSize = 12 + 16 * tags.length + tags.reduce((n, tag) => n + pad4(tablesMap.get(tag)).length, 0);
  const header = Buffer.alloc(48);
  const length = pad4(Buffer.concat([header, directory, packed])).length;
  header.write('wOF2', 0, 'latin1');
  header.writeUInt32BE(flavor, 4);
  header.writeUInt32BE(length, 8);
  header.writeUInt16BE(tags.length, 12);
  header.writeUInt32BE(sfntSize, 16);
  header.writeUInt32BE(packed.length, 20);
  header.writeUInt16BE(1, 24); // version 1.0 of this subset
  return pad4(Buffer.concat([header, directory, packed]));
}

const hex = (c) => c.toString(16).toUpperCase();

// One face of a font: KaTeX_<font>.<suffix>.woff2 in outDir → its @font-face rule.
const faceFile = (font, suffix) => `KaTeX_${font}.${suffix}.woff2`;

function face(font, ttf, codes, suffix, outDir) {
  const file = faceFile(font, suffix);
  writeFileSync(path.join(outDir, file), woff2(subsetTtf(ttf, codes)));
  const { family, weight, style } = FAMILY(font);
  const range = codes.map((c) => `U+${hex(c)}`).join(',');
  return (
    `@font-face{font-family:${family};src:url(fonts/${file}) format("woff2");` +
    `font-weight:${weight};font-style:${style};unicode-range:${range}}`
  );
}

/**
 * Writes KaTeX_<font>.subset.woff2 (the first formulas' glyphs) and KaTeX_<font>.later.woff2
 * (the other formulas' glyphs, and the zero-width space) for each font they use into outDir
 * (beside KaTeX's fonts) → { css: the @font-face rules to append to katex.min.css, first: the
 * .subset.woff2 files, firstFonts: [{ family, style, weight, text }]: the first faces'
 * descriptors and the characters only they cover }. Only the zero-width space may be in both
 * faces: where the first formulas draw it. A browser takes a character from the last face
 * declared that covers it, so the later face comes first.
 */
export function subsetFonts({ first, later }, ttfDir, outDir) {
  const rules = [];
  const firstFiles = [];
  const firstFonts = [];
  const firstChars = charsByFont(first);
  for (const [font, chars] of charsByFont([...first, ...later])) {
    const ttf = readFileSync(path.join(ttfDir, `KaTeX_${font}.ttf`));
    const have = cmapGlyphs(tables(ttf).get('cmap'));
    const kept = (c) => have.has(c) || ZERO_WIDTH.includes(c);
    const early = [...(firstChars.get(font) ?? [])].filter(kept).sort((a, b) => a - b);
    const rest = [...chars, ...ZERO_WIDTH].filter(
      (c, i, all) => kept(c) && all.indexOf(c) === i && (!early.includes(c) || ZERO_WIDTH.includes(c)),
    );
    rules.push(
      face(
        font,
        ttf,
        rest.sort((a, b) => a - b),
        'later',
        outDir,
      ),
    );
    if (early.some((c) => !ZERO_WIDTH.includes(c))) {
      rules.push(face(font, ttf, early, 'subset', outDir));
      firstFiles.push(faceFile(font, 'subset'));
      const { family, weight, style } = FAMILY(font);
      const text = String.fromCodePoint(...early.filter((c) => !ZERO_WIDTH.includes(c)));
      firstFonts.push({ family, style, weight, text });
    }
  }
  return { css: rules.join(''), first: firstFiles, firstFonts };
}
