#include "attention/spec.hpp"

#include <stdexcept>

#include "attention/rng.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

std::string count(std::size_t n) {
    return std::to_string(n);
}

void check_weight_budget(const attention_config &c) {
    const std::size_t values = c.num_heads * c.d_model * (2 * c.d_k + c.d_v) +
                               (c.output_projection ? c.num_heads * c.d_v * c.d_model : 0);
    if (values > limits::max_weight_values)
        throw std::invalid_argument("weights: " + count(values) +
                                    " values in W_Q, W_K, W_V and W_O, "
                                    "above the limit " +
                                    count(limits::max_weight_values) +
                                    "; use fewer heads or smaller d_k, d_v");
}

attention_config generated_config(const generated_spec &s) {
    attention_config c;
    c.seq_len = whole_number("seqLen", s.seq_len, 1, limits::max_seq_len);
    c.d_model = whole_number("dModel", s.d_model, 1, limits::max_d_model);
    c.num_heads = whole_number("numHeads", s.num_heads, 1, limits::max_heads);
    if (c.d_model % c.num_heads != 0)
        throw std::invalid_argument("numHeads: " + count(c.num_heads) + " does not divide dModel " +
                                    count(c.d_model));
    const double per_head = double(c.d_model / c.num_heads);
    c.d_k = whole_number("dK", s.d_k.value_or(per_head), 1, limits::max_head_dim);
    c.d_v = whole_number("dV", s.d_v.value_or(per_head), 1, limits::max_head_dim);
    c.causal = s.causal;
    c.output_projection = s.output_projection;
    c.scale_scores = s.scale_scores;
    check_weight_budget(c);
    return c;
}

// H matrices of one kind, each checked against the shape its head needs.
std::vector<matrix> checked_heads(const std::string &name, const std::vector<row_list> &given,
                                  std::size_t heads, std::size_t d_model, std::size_t *width) {
    if (given.size() != heads)
        throw std::invalid_argument(name + ": " + count(given.size()) + " matrices, but W_Q has " +
                                    count(heads) + " (one per head)");
    std::vector<matrix> out;
    for (std::size_t h = 0; h < heads; ++h) {
        const std::string field = name + "[" + count(h) + "]";
        matrix w = checked_matrix(field, given[h], limits::max_d_model, limits::max_head_dim);
        if (h == 0 && *width == 0)
            *width = cols(w);
        require_shape(field, w, d_model, *width,
                      "(d_model = " + count(d_model) + " rows like X's columns, " + count(*width) +
                          " columns like " + (name == "W_V" ? "W_V[0]" : "W_Q[0]") + ")");
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace

problem make_problem(const generated_spec &spec, bool traced) {
    problem p;
    p.config = generated_config(spec);
    const attention_config &c = p.config;
    numpy_random rng(static_cast<std::uint32_t>(whole_number("seed", spec.seed, 0, 4294967295u)));
    if (traced)
        check_trace_budget(c);                    // before drawing: a refusal should be instant
    p.params.x = rng.randn(c.seq_len, c.d_model); // (T, D)
    for (std::size_t h = 0; h < c.num_heads; ++h)
        p.params.w_q.push_back(rng.randn(c.d_model, c.d_k) * 0.1);
    for (std::size_t h = 0; h < c.num_heads; ++h)
        p.params.w_k.push_back(rng.randn(c.d_model, c.d_k) * 0.1);
    for (std::size_t h = 0; h < c.num_heads; ++h)
        p.params.w_v.push_back(rng.randn(c.d_model, c.d_v) * 0.1);
    if (c.output_projection)
        p.params.w_o = rng.randn(c.num_heads * c.d_v, c.d_model) * 0.1;
    return p;
}

problem make_problem(const explicit_spec &spec) {
    problem p;
    attention_config &c = p.config;
    p.params.x = checked_matrix("X", spec.x, limits::max_seq_len, limits::max_d_model);
    c.seq_len = rows(p.params.x);
    c.d_model = cols(p.params.x);
    if (spec.w_q.empty() || spec.w_q.size() > limits::max_heads)
        throw std::invalid_argument("W_Q: " + count(spec.w_q.size()) +
                                    " matrices; give one per head, "
                                    "between 1 and " +
                                    count(limits::max_heads));
    c.num_heads = spec.w_q.size();
    p.params.w_q = checked_heads("W_Q", spec.w_q, c.num_heads, c.d_model, &c.d_k);
    p.params.w_k = checked_heads("W_K", spec.w_k, c.num_heads, c.d_model, &c.d_k);
    p.params.w_v = checked_heads("W_V", spec.w_v, c.num_heads, c.d_model, &c.d_v);
    c.causal = spec.causal;
    c.scale_scores = spec.scale_scores;
    c.output_projection = spec.w_o.has_value();
    if (c.output_projection) {
        p.params.w_o = checked_matrix("W_O", *spec.w_o, limits::max_heads * limits::max_head_dim,
                                      limits::max_d_model);
        require_shape("W_O", p.params.w_o, c.num_heads * c.d_v, c.d_model,
                      "(h·d_v rows, d_model columns)");
    }
    check_weight_budget(c);
    return p;
}

generated_spec preset(const std::string &name) {
    generated_spec s; // seed 42 throughout, as in the lesson
    if (name == "lesson-self-attention") {
        s.seq_len = 5, s.d_model = 8, s.d_k = 4, s.d_v = 4, s.output_projection = false;
    } else if (name == "lesson-multi-head") {
        s.seq_len = 5, s.d_model = 16, s.num_heads = 4;
    } else if (name == "lesson-causal") {
        s.seq_len = 4, s.d_model = 8, s.d_k = 4, s.d_v = 4, s.causal = true,
        s.output_projection = false;
    } else {
        throw std::invalid_argument("preset: \"" + name +
                                    "\" is not one of lesson-self-attention, "
                                    "lesson-multi-head, lesson-causal");
    }
    return s;
}

void check_trace_budget(const attention_config &c) {
    const std::size_t values = trace_value_count(c);
    if (values > limits::max_trace_values)
        throw std::invalid_argument(
            "trace: " + count(c.seq_len) + " tokens and " + count(c.num_heads) + " heads need " +
            count(values) + " values, above the trace budget of " +
            count(limits::max_trace_values) + " (128 MiB); use fewer tokens or heads");
}

} // namespace attention
