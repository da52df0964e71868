// A stage entry with the fields most entries leave at their default filled in, so that an entry
// states only what it says about its stage (every field: ../stage-table.js). Each entry gets an
// operands record and a quiz list of its own.
export function entry(fields) {
  return { operands: {}, nonNegative: false, quiz: [], firstView: false, terms: [], ...fields };
}
