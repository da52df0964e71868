#include "attention/engine.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/backward.hpp"
#include "attention/costs.hpp"
#include "attention/decode.hpp"
#include "attention/encoder.hpp"
#include "attention/field_ranges.hpp"
#include "attention/flash.hpp"
#include "attention/gradient_check.hpp"
#include "attention/gradient_scaling.hpp"
#include "attention/message_text.hpp"
#include "attention/mla.hpp"
#include "attention/model_pass.hpp"
#include "attention/ops.hpp"
#include "attention/passes.hpp"
#include "attention/rng.hpp"
#include "attention/score_variance.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

matrix compute(const problem &p, trace *out) {
    switch (p.config.kind) {
    case problem_kind::encoder_layer:
        return encoder_layer(p.params, p.ffn, p.config, out);
    case problem_kind::kv_cache:
        return decode_with_cache(p.params, p.config, out);
    case problem_kind::flash:
        return flash_attention(p.params, p.config, out);
    case problem_kind::backward: // the gradients are the trace's; what returns is the output
        if (out)
            attention_backward(p.params, p.d_output, p.config, out);
        return multi_head_attention(p.params, p.config);
    case problem_kind::model: // what returns is the loss
        return model_pass(*p.net, p.token_ids, p.counted, out);
    case problem_kind::mla:
        return latent_attention(p.params, p.config, out);
    default:
        return multi_head_attention(p.params, p.config, out);
    }
}

} // namespace

trace run_traced(const problem &p) {
    check_trace_budget(p.config);
    trace t;
    const matrix output = compute(p, &t);
    const problem_kind kind = p.config.kind;
    const bool prefix_free = causal_mask(p.config) && !p.config.prefix; // a prefix sees ahead
    if (prefix_free && (kind == problem_kind::self || kind == problem_kind::designed))
        t.checks.causal_prefix = causal_prefix_differences(p.params, p.config, output);
    t.checks.score_variance = score_variances(t);
    if (kind == problem_kind::backward) { // seeded as the run was; 42 when nothing was drawn
        t.checks.gradient_scaling =
            gradient_scaling(std::uint32_t(std::isnan(p.seed) ? 42 : p.seed));
        t.checks.gradient_checks = check_gradients(p.params, p.d_output, p.config, t);
    }
    return t;
}

matrix forward(const problem &p) {
    return compute(p, nullptr);
}

std::vector<double> prune_each_head(const problem &p) {
    const problem_kind kind = p.config.kind;
    if (kind == problem_kind::mla)
        throw std::invalid_argument("spec: pruning is not stepped for kind \"mla\" (its heads share one "
                                    "latent); prune in self-, cross-, designed attention or the encoder layer");
    if (!p.config.output_projection || kind == problem_kind::kv_cache ||
        kind == problem_kind::flash || kind == problem_kind::model)
        throw std::invalid_argument("spec: pruning needs the output projection W_O (self-, cross-, "
                                    "designed attention or the encoder layer)");
    attention_config c = p.config;
    c.pruned_heads.clear();
    const matrix whole = multi_head_attention(p.params, c); // (T, D)
    std::vector<double> changes;
    for (std::size_t h = 0; h < c.num_heads; ++h) {
        c.pruned_heads = {h};
        changes.push_back(relative_change(multi_head_attention(p.params, c), whole));
    }
    return changes;
}

cell_request cell_of(const field_values &cell) {
    const std::string name = std::get<std::string>(cell.at("stage"));
    const std::optional<stage_id> id = stage_named(name);
    if (!id)
        throw std::invalid_argument("stage: " + quoted_for_message(name) +
                                    " is not a stage; the stages are " + stage_names());
    const auto index = [&](const char *field, std::size_t hi, int absent) {
        return cell.count(field) ? int(whole_number(field, number_or(cell, field, 0), 0, hi))
                                 : absent;
    };
    return {*id, index("head", limits::max_heads - 1, no_head), index("step", 1u << 20, no_step),
            whole_number("row", number_or(cell, "row", NAN), 0, limits::max_seq_len),
            whole_number("col", number_or(cell, "col", NAN), 0, limits::max_d_ff * 64)};
}

namespace {

// What f returns, or its refusal named within cells[i]: "row: …" as "cells[i].row: …", and
// "cell: …" (the whole cell) as "cells[i]: …".
template <class F> auto in_cell(std::size_t i, F f) {
    try {
        return f();
    } catch (const std::invalid_argument &e) {
        const std::string at = "cells[" + std::to_string(i) + "]", message = e.what();
        if (message.rfind("cell: ", 0) == 0)
            throw std::invalid_argument(at + message.substr(4));
        throw std::invalid_argument(at + "." + message);
    }
}

} // namespace

std::vector<cell_request> cells_of(const std::vector<field_values> &cells) {
    std::vector<cell_request> out;
    for (const field_values &c : cells)
        out.push_back(in_cell(out.size(), [&] { return cell_of(c); }));
    return out;
}

cell_explanation explain(const problem &p, const cell_request &cell) {
    return explain_cell(run_traced(p), cell.stage, cell.head, cell.row, cell.col, cell.step);
}

std::vector<cell_explanation> explain(const problem &p, const std::vector<cell_request> &cells) {
    return explain(run_traced(p), cells);
}

std::vector<cell_explanation> explain(const trace &t, const std::vector<cell_request> &cells) {
    std::vector<cell_explanation> out;
    std::size_t parts = 0; // the numbers the explanations hold so far
    for (const cell_request &c : cells) {
        out.push_back(in_cell(
            out.size(), [&] { return explain_cell(t, c.stage, c.head, c.row, c.col, c.step); }));
        parts += numbers_in(out.back());
        if (parts > limits::max_explained_values)
            reject("cells", "the first " + std::to_string(out.size()) + " of " +
                                std::to_string(cells.size()) + " cells take " +
                                std::to_string(parts) + " numbers apart, more than the limit " +
                                std::to_string(limits::max_explained_values) +
                                "; ask for fewer cells at a time");
    }
    return out;
}

matrix randn(const field_values &args) {
    const std::size_t rows = whole_number("rows", number_or(args, "rows", NAN), 1, 1u << 24);
    const std::size_t cols = whole_number("cols", number_or(args, "cols", NAN), 1, 1u << 24);
    if (rows > limits::max_trace_values / cols) // not rows · cols: size_t is 32-bit in WASM
        throw std::invalid_argument("rows: " + std::to_string(rows) + " × " + std::to_string(cols) +
                                    " values, above the limit " +
                                    std::to_string(limits::max_trace_values));
    numpy_random rng(static_cast<std::uint32_t>(in_range("seed", number_or(args, "seed", NAN))));
    return rng.randn(rows, cols);
}

} // namespace attention
