// A scene (scene.js) as a self-contained SVG document: no CSS, no fonts, no scripts, nothing
// fetched; the colours inline, the font stacks named, the −∞ hatching and the legend's ramp
// as <defs>. It opens on its own in a browser at its CSS size (width × height px).

import { FONTS } from '../../theme.js';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const escapeXml = (s) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);

// Coordinates with at most two decimals keep the file small and the text exact.
const n = (v) => String(Math.round(v * 100) / 100);

function rectSvg(r) {
  const fill = r.pattern ? `url(#${r.pattern})` : r.fill;
  const stroke = r.stroke ? ` stroke="${r.stroke}" stroke-width="1"` : '';
  // A stroked rect sits on half pixels so its 1px line is crisp, as the canvas draws it.
  const o = r.stroke ? 0.5 : 0;
  return (
    `<rect x="${n(r.x + o)}" y="${n(r.y + o)}" width="${n(r.w - 2 * o)}" ` +
    `height="${n(r.h - 2 * o)}" fill="${fill}"${stroke}/>`
  );
}

// What most texts are (the cells' numbers): set once on the group around them and inherited,
// so that a large matrix does not repeat its font stack in every cell.
const DEFAULT = { font: 'mono', size: 12, anchor: 'end' };

function textSvg(t) {
  const style = [];
  if (t.anchor !== DEFAULT.anchor) style.push(`text-anchor="${t.anchor}"`);
  if (t.font !== DEFAULT.font) style.push(`font-family="${escapeXml(FONTS[t.font])}"`);
  if (t.size !== DEFAULT.size) style.push(`font-size="${t.size}"`);
  if (t.weight !== 400) style.push(`font-weight="${t.weight}"`);
  if (t.italic) style.push('font-style="italic"');
  if (t.rotate) style.push(`transform="rotate(${t.rotate} ${n(t.x)} ${n(t.y)})"`);
  return (
    `<text x="${n(t.x)}" y="${n(t.y)}" fill="${t.fill}" ` +
    `dominant-baseline="central"${style.map((a) => ` ${a}`).join('')}>${escapeXml(t.text)}</text>`
  );
}

function gradientSvg(g, ids) {
  const key = g.stops.join(',');
  if (!ids.has(key)) ids.set(key, `ramp-${ids.size}`);
  return (
    `<rect x="${n(g.x + 0.5)}" y="${n(g.y + 0.5)}" width="${n(g.w - 1)}" height="${n(g.h - 1)}" ` +
    `fill="url(#${ids.get(key)})" stroke="${g.stroke}" stroke-width="1"/>`
  );
}

function defs(scene, ramps) {
  const { a, b } = scene.hatch;
  // The page's repeating-linear-gradient(135deg, a 0 5px, b 5px 10px): stripes 5px wide.
  const hatch =
    `<pattern id="hatch" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="10" height="10" fill="${a}"/><rect width="5" height="10" fill="${b}"/></pattern>`;
  const gradients = [...ramps].map(([key, id]) => {
    const stops = key.split(',');
    const list = stops
      .map((c, i) => `<stop offset="${n((i / Math.max(1, stops.length - 1)) * 100)}%" stop-color="${c}"/>`)
      .join('');
    return `<linearGradient id="${id}" x1="0" y1="0" x2="1" y2="0">${list}</linearGradient>`;
  });
  return `<defs>${hatch}${gradients.join('')}</defs>`;
}

/** scene → SVG text; title: the document's <title> (for screen readers and tabs). */
export function sceneSvg(scene, { title = '' } = {}) {
  const ramps = new Map();
  const body = scene.shapes.map((s) =>
    s.t === 'rect' ? rectSvg(s) : s.t === 'text' ? textSvg(s) : gradientSvg(s, ramps),
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" ` +
      `viewBox="0 0 ${scene.width} ${scene.height}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    defs(scene, ramps),
    `<rect width="${scene.width}" height="${scene.height}" fill="${scene.background}"/>`,
    `<g font-family="${escapeXml(FONTS[DEFAULT.font])}" font-size="${DEFAULT.size}" text-anchor="${DEFAULT.anchor}">`,
    ...body,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
