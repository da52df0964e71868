// The format of the trace fixtures (tests/fixtures/traces/), both ways: scripts/record-traces.mjs
// writes it, fixtures.mjs reads it back for the model tests.
//
// index.json lists the specs ({ name, spec, file }), catalog.json holds engine.presets() and
// engine.models(). A trace file is { version, trace, cells, answers, arrays }: engine.run(spec),
// the cells engine.explain(spec, cell) was asked about and its answers. Every Float64Array is
// { $f64: i }, an index into `arrays` (identical arrays are stored once: an operand is often
// another stage's result); a list of objects with the same keys is { $keys, $rows }; in `arrays`
// and as { $num } elsewhere, a number JSON cannot hold (−∞ in a mask, −0) is its string:
// "-Infinity", "-0".
import { readFileSync } from 'node:fs';

export const VERSION = 1;
export const FIXTURE_DIR = new URL('../fixtures/traces/', import.meta.url);
export const RECORD = 'run node scripts/record-traces.mjs (after bash scripts/build.sh)';

// JSON has no −∞, ∞, NaN or −0 (it writes 0, which a cell would show without its sign).
const isPlain = (x) => Number.isFinite(x) && !Object.is(x, -0);
const text = (x) => (Object.is(x, -0) ? '-0' : String(x));
const number = (x) => (isPlain(x) ? x : text(x));

/** A recorded value → plain JSON: typed arrays into `arrays`, non-finite numbers as strings. */
export function encodeValue(value, pool) {
  if (ArrayBuffer.isView(value)) return { $f64: pool.add(Array.from(value, number)) };
  if (typeof value === 'number') return isPlain(value) ? value : { $num: text(value) };
  if (Array.isArray(value)) return tableOf(value, pool) ?? value.map((v) => encodeValue(v, pool));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeValue(v, pool)]));
}

const isRecord = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x);

// Two or more objects with the same keys in the same order (stages, operands, an explain's terms)
// as { $keys, $rows }: the keys once, each object a row of values.
function tableOf(items, pool) {
  if (items.length < 2 || !items.every(isRecord)) return null;
  const keys = Object.keys(items[0]);
  const same = items.every((item) => Object.keys(item).join() === keys.join());
  if (!same) return null;
  return { $keys: keys, $rows: items.map((item) => keys.map((k) => encodeValue(item[k], pool))) };
}

/** Arrays stored once each, by content: add(array) → its index. */
export function arrayPool() {
  const arrays = [];
  const index = new Map();
  const add = (array) => {
    const key = JSON.stringify(array);
    if (!index.has(key)) index.set(key, arrays.push(array) - 1);
    return index.get(key);
  };
  return { arrays, add };
}

/** The inverse of encodeValue, given the file's `arrays`. */
export function decodeValue(value, arrays) {
  if (Array.isArray(value)) return value.map((v) => decodeValue(v, arrays));
  if (value === null || typeof value !== 'object') return value;
  if ('$keys' in value) {
    return value.$rows.map((row) => Object.fromEntries(value.$keys.map((k, i) => [k, decodeValue(row[i], arrays)])));
  }
  if ('$f64' in value) return Float64Array.from(arrays[value.$f64], Number);
  if ('$num' in value) return Number(value.$num);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeValue(v, arrays)]));
}

/** The key a recorded explain is found by: the cell engine.explain was asked about. */
export function cellKey({ stage, head, step, row, col }) {
  return JSON.stringify({ stage, head, step: step ?? null, row, col });
}

export function readJson(file) {
  const data = JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8'));
  if (data.version !== VERSION)
    throw new Error(`${file}: fixture version ${data.version}, expected ${VERSION}: ${RECORD}`);
  return data;
}
