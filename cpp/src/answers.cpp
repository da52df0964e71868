#include "attention/answers.hpp"

#include <stdexcept>

#include "attention/describe.hpp"
#include "attention/engine.hpp"
#include "attention/kv_size.hpp"
#include "attention/reader.hpp"
#include "attention/spec_reader.hpp"
#include "attention/trace_pack.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

// The cells asked of a trace: one { stage, head?, step?, row, col }, or a list of at most 65,536
// of them (a refused one named cells[i]).
value explain_cells(const trace &t, const value &cell) {
    const std::string should = "an object { stage, head, step?, row, col }";
    if (type_of(cell) != "array") {
        const cell_request c = cell_of(read(cell, "cell", should, cell_fields(), "a cell"));
        return describe(explain_cell(t, c.stage, c.head, c.row, c.col, c.step));
    }
    std::vector<field_values> asked;
    for (std::size_t i = 0; i < checked_length(cell, "cells", "cells", 1u << 16); ++i) {
        const std::string at = "cells[" + std::to_string(i) + "]";
        const auto *list = std::get_if<value_list>(&cell.v);
        const value number = list ? value() : std::get<number_array>(cell.v).items[i];
        asked.push_back(
            read(list ? (*list)[i] : number, at, should, cell_fields(), "a cell", true));
    }
    value_list out;
    for (const cell_explanation &e : explain(t, cells_of(asked)))
        out.push_back(describe(e));
    return out;
}

} // namespace

value explain_answer(const value &spec, const value &cell) {
    return explain_cells(run_traced(problem_from(spec, true)), cell);
}

value explain_trace_answer(const value &spec, const value &layout, const value &values,
                           const value &cell) {
    const auto *buffer = std::get_if<std::vector<double>>(&values.v);
    if (!buffer)
        throw std::invalid_argument("trace: its values are not as run() wrote them");
    return explain_cells(trace_of(layout, *buffer, problem_from(spec, true).config), cell);
}

double kv_cache_bytes_answer(const value &query) {
    const std::string should =
        "an object { seqLen, dHead, numKvHeads (or latentDims), numLayers, bytesPerValue, batch }";
    const field_values v = read(query, "query", should, kv_query_fields(), "kvCacheBytes");
    kv_cache_query q;
    q.seq_len = number_or(v, "seqLen", q.seq_len);
    if (v.count("latentDims")) { // MLA: one latent row per token, no K/V heads
        for (const char *heads : {"dHead", "numKvHeads"})
            if (v.count(heads))
                reject("latentDims", std::string("and ") + heads +
                                         " together: an MLA cache keeps one latent row per token "
                                         "that every head reads, not K and V per head; give one");
        q.latent_dims = number_or(v, "latentDims", 0);
    }
    for (const char *needed : {"dHead", "numKvHeads"})
        if (!q.latent_dims && !v.count(needed))
            reject(needed, "is missing; give a whole number (or latentDims for an MLA cache)");
    q.d_head = number_or(v, "dHead", q.d_head);
    q.num_kv_heads = number_or(v, "numKvHeads", q.num_kv_heads);
    q.num_layers = number_or(v, "numLayers", q.num_layers);
    q.bytes_per_value = number_or(v, "bytesPerValue", q.bytes_per_value);
    q.batch = number_or(v, "batch", q.batch);
    if (v.count("window"))
        q.window = number_or(v, "window", 0);
    return double(kv_cache_bytes(q)); // ≤ 2⁵³
}

matrix randn_answer(const value &seed, const value &rows, const value &cols) {
    return randn(
        fields_from(value_record{{"seed", seed}, {"rows", rows}, {"cols", cols}}, randn_fields()));
}

value prune_each_answer(const value &spec) {
    return describe_pruning(prune_each_head(problem_from(spec, false)));
}

} // namespace attention
