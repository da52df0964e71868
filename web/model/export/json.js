// One stage of the trace as JSON: what the engine computed, at full precision. JSON has no
// infinities, so −∞ (masked logits) and any other non-finite value is written as a string
// ("-Infinity", "Infinity", "NaN"), as the file's own `nonFinite` field says.

export const NON_FINITE_NOTE =
  'values that are not finite numbers are the strings "-Infinity", ' +
  '"Infinity" and "NaN" (JavaScript\u2019s Number() reads them back)';

// A number as JSON: JavaScript writes the shortest text that reads back as the same double;
// −0 keeps its sign ("-0", which JSON.parse reads as −0; JSON.stringify would write 0).
const jsonValue = (v) => (Number.isFinite(v) ? v : String(v));
const jsonText = (v) => (Object.is(v, -0) ? '-0' : JSON.stringify(jsonValue(v)));

/**
 * stage: a trace stage { id, head, kvHead, step, tile, shape, axes, equation, symbolic, values }
 * → the JSON text: one header field a line, then `values` one row a line.
 */
export function stageJson(stage, { preset = null, chapter = null } = {}) {
  const header = {
    format: 'attention-stepper stage',
    version: 1,
    nonFinite: NON_FINITE_NOTE,
    chapter,
    preset,
    id: stage.id,
    head: stage.head ?? null,
    kvHead: stage.kvHead ?? null,
    step: stage.step ?? null,
    tile: stage.tile ?? null,
    shape: [...stage.shape],
    axes: stage.axes ? [...stage.axes] : null,
    equation: stage.equation,
    symbolic: stage.symbolic,
  };
  const fields = Object.entries(header).map(([k, v]) => ` ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  const [count, cols] = stage.shape;
  const rows = Array.from(
    { length: count },
    (_, r) => `  [${Array.from(stage.values.slice(r * cols, (r + 1) * cols), jsonText).join(', ')}]`,
  );
  return `{\n${fields.join(',\n')},\n "values": [${rows.length ? `\n${rows.join(',\n')}\n ` : ''}]\n}\n`;
}
