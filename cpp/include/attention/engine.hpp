// The two ways to run a validated problem: with its whole trace, or output only.
#pragma once

#include "attention/budget.hpp"
#include "attention/explain.hpp"
#include "attention/fields.hpp"
#include "attention/spec.hpp"
#include "attention/trace.hpp"

#include <vector>

namespace attention {

// Every stage of the problem, in the order of the lesson. Throws
// std::invalid_argument when the trace would exceed limits::max_trace_values.
trace run_traced(const problem &p);

// The final output only: (T, D) with W_O (and from the encoder layer), else (T, H·DV).
// Records nothing.
matrix forward(const problem &p);

// For each head alone, ‖Δ‖ / ‖·‖ of the attention output (the `output` stage) when that head is
// pruned, against the output with no head pruned. Throws for kinds without W_O.
std::vector<double> prune_each_head(const problem &p);

// engine.explain's cell: { stage, head?, step?, row, col } (cell_fields), each in range.
struct cell_request {
    stage_id stage;
    int head, step; // no_head, no_step when not given
    std::size_t row, col;
};
cell_request cell_of(const field_values &cell);
std::vector<cell_request> cells_of(const std::vector<field_values> &cells); // named cells[i]

// That cell of the problem's trace, taken apart. Throws naming the field for a stage, head,
// step or cell the trace does not have.
cell_explanation explain(const problem &p, const cell_request &cell);

// Each of the cells, from one traced run, or from the trace t; a refused cell is named by its
// index ("cells[3].row").
std::vector<cell_explanation> explain(const problem &p, const std::vector<cell_request> &cells);
std::vector<cell_explanation> explain(const trace &t, const std::vector<cell_request> &cells);

// engine.randn: numpy's np.random.seed(seed); np.random.randn(rows, cols), from randn_fields.
// Throws naming the field for sizes out of range or above the trace budget.
matrix randn(const field_values &args);

} // namespace attention
