// Draws an export scene (model/export/scene.js) with the Canvas 2D API and returns it as a PNG.
// Drawn directly, not by rasterising the SVG through an <img>: under the page's CSP
// (default-src 'self') an image from a blob: or data: URL is blocked. Same shapes, same
// colours, same fonts as the SVG. An OffscreenCanvas where there is one: its convertToBlob
// encodes at once, where a page canvas's toBlob waits for the page to be idle (over a second
// in a busy or headless page); the page canvas and toBlob otherwise.

import { FONTS } from '../theme.js';

// Chromium's canvas limits (about 32767 px a side, 268 million pixels): a figure too large for
// twice its size is drawn as large as fits instead.
const MAX_SIDE = 16384;
const MAX_AREA = 16384 * 16384;

/** The scale a scene is drawn at: 2, or less when 2 would exceed the canvas limits. */
export function pngScale(scene, wanted = 2) {
  const bySide = MAX_SIDE / Math.max(scene.width, scene.height);
  const byArea = Math.sqrt(MAX_AREA / (scene.width * scene.height));
  return Math.min(wanted, bySide, byArea);
}

function makeCanvas(width, height) {
  if (typeof OffscreenCanvas === 'function') return new OffscreenCanvas(width, height);
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

// The page's 135° stripes of two greys, 5px each, as a repeating pattern.
function hatchPattern(ctx, { a, b }) {
  const tile = makeCanvas(10, 10);
  const t = tile.getContext('2d');
  t.fillStyle = a;
  t.fillRect(0, 0, 10, 10);
  t.fillStyle = b;
  t.fillRect(0, 0, 5, 10);
  const pattern = ctx.createPattern(tile, 'repeat');
  pattern.setTransform(new DOMMatrix().rotate(45));
  return pattern;
}

const ALIGN = { start: 'left', middle: 'center', end: 'right' };

function drawText(ctx, s) {
  ctx.save();
  ctx.font = `${s.italic ? 'italic ' : ''}${s.weight} ${s.size}px ${FONTS[s.font]}`;
  ctx.fillStyle = s.fill;
  ctx.textAlign = ALIGN[s.anchor];
  ctx.textBaseline = 'middle';
  ctx.translate(s.x, s.y);
  if (s.rotate) ctx.rotate((s.rotate * Math.PI) / 180);
  ctx.fillText(s.text, 0, 0);
  ctx.restore();
}

function drawRect(ctx, s, hatch) {
  ctx.fillStyle = s.pattern ? hatch : s.fill;
  ctx.fillRect(s.x, s.y, s.w, s.h);
  if (s.stroke) {
    ctx.strokeStyle = s.stroke;
    ctx.lineWidth = 1;
    ctx.strokeRect(s.x + 0.5, s.y + 0.5, s.w - 1, s.h - 1);
  }
}

function drawGradient(ctx, s) {
  const g = ctx.createLinearGradient(s.x, 0, s.x + s.w, 0);
  s.stops.forEach((c, i) => g.addColorStop(i / Math.max(1, s.stops.length - 1), c));
  ctx.fillStyle = g;
  ctx.fillRect(s.x, s.y, s.w, s.h);
  ctx.strokeStyle = s.stroke;
  ctx.strokeRect(s.x + 0.5, s.y + 0.5, s.w - 1, s.h - 1);
}

/** scene → a canvas of (width · scale) × (height · scale) pixels with the scene drawn on it. */
export function drawScene(scene, scale = pngScale(scene)) {
  const canvas = makeCanvas(Math.round(scene.width * scale), Math.round(scene.height * scale));
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = scene.background;
  ctx.fillRect(0, 0, scene.width, scene.height);
  const hatch = hatchPattern(ctx, scene.hatch);
  for (const s of scene.shapes) {
    if (s.t === 'rect') drawRect(ctx, s, hatch);
    else if (s.t === 'text') drawText(ctx, s);
    else drawGradient(ctx, s);
  }
  return canvas;
}

/** scene → Promise<Blob> (image/png) at twice its CSS size (see pngScale). */
export function scenePng(scene, scale = pngScale(scene)) {
  const canvas = drawScene(scene, scale);
  if (canvas.convertToBlob) return canvas.convertToBlob({ type: 'image/png' });
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('the canvas could not be encoded as PNG'))),
      'image/png',
    );
  });
}
