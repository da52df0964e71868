// A trace packed for the hand-off to JS: every matrix once, back to back in one flat buffer of
// doubles, and a JSON layout of the stages and operands giving each one's shape and offset
// into that buffer (web/engine-api.js's unpackTrace reads it). Pure C++: the bindings only
// copy the placed matrices into a Float64Array and hand over the JSON text.
// Legend: R, C = a stage's or operand's rows and columns; N = the buffer's length.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attention/matrix.hpp"
#include "attention/trace.hpp"
#include "attention/value.hpp"

namespace attention {

// One matrix's place in the buffer: its R · C values, row-major, from `offset` on.
struct placed_matrix {
    const matrix *values; // (R, C), owned by the trace: valid while the trace lives
    std::size_t offset;   // index of values(0, 0) in the buffer
};

// The layout of a packed trace. A matrix equal bit for bit to one already placed (an operand
// repeating a stage, e.g. X beside every Q) is placed once and its offset shared.
struct trace_layout {
    // [{"id","head","kvHead","step","tile","equation","symbolic","axes","shape","offset",
    //   "totals":{"shape","offset"}|null,"operands":[{"name","head","axes","shape","offset"}],
    //   "terms":["causal",…]}]
    std::string json;
    std::vector<placed_matrix> placed; // the distinct matrices, in buffer order, contiguous
    std::size_t value_count = 0;       // N = Σ of the placed matrices' R · C
};

// The layout of t's stages (t must outlive it: placed points into t).
trace_layout layout_of(const trace &t);

// The buffer: every placed matrix copied to its offset. (N)
std::vector<double> packed_values(const trace_layout &layout);

// The trace a layout and its buffer describe, back again (the stages explain_cell reads: ids,
// heads, steps, tiles, values, totals and operands; not their equations or axes), for config c.
// layout: layout_of's stages as JSON.parse reads them. Throws std::invalid_argument naming
// "trace" for a layout that is not one layout_of wrote for this buffer.
trace trace_of(const value &layout, const std::vector<double> &values, const attention_config &c);

// text as a JSON string literal: "…" with quotes, backslashes and control characters
// (U+0000–U+001F) escaped; every other byte, UTF-8 included, kept as it is.
std::string json_string(const std::string &text);

} // namespace attention
