// Readers for what the export menu writes, used by export.test.mjs: NPY, CSV, PNG sizes, the
// printed output of a generated numpy script; python3 runs; the cases' hashes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const PYTHON = '/usr/bin/python3';

/** NPY 1.0 bytes → { header, shape, data (Buffer), preamble } with its layout checked. */
export function readNpy(bytes) {
  assert.deepEqual([...bytes.subarray(0, 6)], [0x93, ...Buffer.from('NUMPY')], 'NPY magic');
  assert.deepEqual([bytes[6], bytes[7]], [1, 0], 'NPY version 1.0');
  const length = bytes.readUInt16LE(8);
  const preamble = 10 + length;
  assert.equal(preamble % 64, 0, 'the data starts at a multiple of 64 bytes');
  const header = bytes.subarray(10, preamble).toString('latin1');
  assert.match(header, /^\{'descr': '<f8', 'fortran_order': False, 'shape': \((\d+), (\d+)\), \} *\n$/);
  const [, rows, cols] = /\((\d+), (\d+)\)/.exec(header).map(Number);
  return { header, shape: [rows, cols], data: bytes.subarray(preamble), preamble };
}

/** The float64 values' bytes as numpy should hold them: little-endian, row-major. */
export function f64Bytes(values) {
  const out = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => out.writeDoubleLE(v, i * 8));
  return out;
}

/** RFC 4180 CSV (quoted fields, CRLF) → rows of fields. */
export function readCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') field += text[i++];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') (rows.push([...row, field]), (row = []), (field = ''), (i += 1));
    else field += c;
  }
  return rows;
}

/** A PNG's pixel size from its IHDR chunk. */
export function pngSize(bytes) {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** What a generated script prints: a "name: (r, c)" line, then the array (numpy's format). */
export function readPrinted(stdout) {
  const [first, ...rest] = stdout.trim().split('\n');
  const shape = /\((\d+), (\d+)\)$/.exec(first).slice(1).map(Number);
  const body = rest.join(' ').replace(/[[\]]/g, ' ').trim();
  const values = body
    ? body.split(/\s+/).map((t) => ({ '-inf': -Infinity, inf: Infinity, nan: NaN })[t] ?? Number(t))
    : [];
  return { shape, values };
}

/** The largest |a − b| (0 where both are the same infinity); NaN when a value is missing. */
export function maxDifference(got, want) {
  if (got.length !== want.length) return NaN;
  let worst = 0;
  for (let i = 0; i < want.length; i += 1) worst = Math.max(worst, got[i] === want[i] ? 0 : Math.abs(got[i] - want[i]));
  return worst;
}

export async function python(args) {
  const { stdout } = await run(PYTHON, args, { maxBuffer: 64 << 20 });
  return stdout;
}

/** Runs jobs (functions returning promises) at most `width` at a time; their results in order. */
export async function limited(jobs, width = 4) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

export const readBytes = (file) => readFile(file);

/** The hash that shows a stage of a preset in its chapter. */
export function caseHash({ chapter, preset, stage }) {
  const head = stage.head === null ? '' : `&head=${stage.head}`;
  const step = stage.step === null || stage.step === undefined ? '' : `&step=${stage.step}`;
  return `#chapter=${chapter}&preset=${preset}&stage=${stage.id}${head}${step}`;
}
