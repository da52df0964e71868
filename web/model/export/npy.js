// A matrix as NPY 1.0 bytes (numpy's own file format), so `numpy.load` reads the trace's
// float64 values back bit for bit. No arithmetic: the header is text, the data the same bits.
//   magic "\x93NUMPY", version 1.0, header length (uint16 LE), the header dict padded with
//   spaces and ended by "\n" so that the data starts at a multiple of 64 bytes, then the values
//   as little-endian float64 in C (row-major) order.

const MAGIC = [0x93, ...'NUMPY'].map((c) => (typeof c === 'number' ? c : c.charCodeAt(0)));
const PREAMBLE = MAGIC.length + 2 + 2; // magic, version, header length
const ALIGN = 64;

// The header dict numpy writes itself, e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }
export function npyHeader(shape) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '<f8', 'fortran_order': False, 'shape': ${dims}, }`;
  const padded = Math.ceil((PREAMBLE + dict.length + 1) / ALIGN) * ALIGN - PREAMBLE;
  return `${dict.padEnd(padded - 1, ' ')}\n`;
}

/** shape [rows, cols], values a row-major Float64Array (or array) → Uint8Array. */
export function npyBytes(shape, values) {
  const count = shape.reduce((a, b) => a * b, 1);
  if (values.length !== count) throw new Error(`npy: ${values.length} values for shape (${shape.join(', ')})`);
  const header = npyHeader(shape);
  const bytes = new Uint8Array(PREAMBLE + header.length + 8 * count);
  bytes.set(MAGIC, 0);
  bytes[6] = 1; // version 1.0: a header shorter than 65536 bytes
  bytes[7] = 0;
  new DataView(bytes.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i += 1) bytes[PREAMBLE + i] = header.charCodeAt(i);
  // DataView with littleEndian = true: the same bytes on any machine, '<f8' as the header says.
  const data = new DataView(bytes.buffer, PREAMBLE + header.length);
  for (let i = 0; i < count; i += 1) data.setFloat64(8 * i, values[i], true);
  return bytes;
}
