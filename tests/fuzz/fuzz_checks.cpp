#include "fuzz_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "attention/validation.hpp"

namespace fuzz {

using namespace attention;

void finding(const std::string &what) {
    std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
    std::abort();
}

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// −∞ belongs to the masked logits and what holds them: M, the tiles' scores, and the running max
// (m before a tile, tile_max after it) of a row that has seen no key yet: under a window a block's
// first tiles may all lie before a row's window.
bool may_be_minus_inf(const std::string &name) {
    return name == "masked" || name == "M" || name == "tile_scores" || name == "m" ||
           name == "tile_max";
}

void check_values(const matrix &m, const std::string &where, bool minus_inf_ok) {
    for (std::size_t i = 0; i < m.size(); ++i) {
        const double v = m.data()[i];
        if (std::isnan(v) || v == -minus_inf || (v == minus_inf && !minus_inf_ok))
            finding(where + ": value " + js_number(v) + " at flat index " + std::to_string(i));
    }
}

// The sink's share beside a head's weights (the stage of the same head and step), or none.
const stage *sink_of(const trace &t, const stage &weights) {
    for (const stage &s : t.stages)
        if (s.id == stage_id::sink && s.head == weights.head && s.step == weights.step)
            return &s;
    return nullptr;
}

void check_stage(const stage &s, const trace &t) {
    const std::string where = std::string(name_of(s.id)) + " head " + std::to_string(s.head) +
                              " step " + std::to_string(s.step);
    check_values(s.values, where, may_be_minus_inf(name_of(s.id)));
    check_values(s.totals, where + " totals", false);
    for (const operand &o : s.operands)
        check_values(o.values, where + " operand " + o.name, may_be_minus_inf(o.name));
    if (s.id != stage_id::weights)
        return;
    const stage *sink = t.config.sinks.empty() ? nullptr : sink_of(t, s); // rows sum to 1 − its share
    if (!t.config.sinks.empty() && !sink)
        finding(where + ": sinks, but no sink stage beside the weights");
    for (std::size_t i = 0; i < s.totals.size(); ++i) {
        const double share = sink ? sink->values(i, 0) : 0.0;
        if (std::fabs(s.totals.data()[i] + share - 1.0) > 1e-9)
            finding(where + ": row " + std::to_string(i) + " sums to " + js_number(s.totals.data()[i]) +
                    (sink ? ", the sink's share " + js_number(share) : ""));
    }
}

double largest_magnitude(const matrix &m) {
    double most = 0.0;
    for (double v : m)
        most = std::max(most, std::fabs(v));
    return most;
}

// The stage whose values are the run's final output: what forward() returns.
const stage *final_stage(const trace &t) {
    const attention_config &c = t.config;
    const stage_id id = c.kind == problem_kind::encoder_layer ? stage_id::norm2
                        : c.kind == problem_kind::model       ? stage_id::loss
                        : c.kind == problem_kind::kv_cache || c.kind == problem_kind::flash
                            ? stage_id::stacked
                            : stage_id::output;
    if (id == stage_id::output && !c.output_projection)
        return nullptr;
    for (const stage &s : t.stages)
        if (s.id == id)
            return &s;
    finding(std::string("the trace has no final stage ") + name_of(id));
}

} // namespace

void check_trace(const trace &t) {
    if (t.stages.empty())
        finding("a traced run recorded no stage");
    if (recorded_value_count(t) > trace_value_count(t.config))
        finding("recorded " + std::to_string(recorded_value_count(t)) +
                " values, above trace_value_count's " +
                std::to_string(trace_value_count(t.config)));
    for (const stage &s : t.stages)
        check_stage(s, t);
    const trace_checks &k = t.checks;
    if (k.max_difference) {
        const stage *out = final_stage(t);
        const double scale = std::max(1.0, out ? largest_magnitude(out->values) : 1.0);
        if (!(*k.max_difference <= 1e-9 * scale))
            finding("maxDifference " + js_number(*k.max_difference));
    }
    if (k.output_change && !(*k.output_change >= 0))
        finding("outputChange " + js_number(*k.output_change));
}

void check_forward(const problem &p, const trace &t) {
    const stage *last = final_stage(t);
    if (!last)
        return;
    const matrix out = forward(p);
    if (out.shape() != last->values.shape())
        finding("forward's shape differs from the final stage " + std::string(name_of(last->id)) +
                "'s");
    const double tolerance = 1e-9 * std::max(1.0, largest_magnitude(last->values));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!(std::fabs(out.data()[i] - last->values.data()[i]) <= tolerance))
            finding("forward differs from the traced " + std::string(name_of(last->id)) +
                    " at flat index " + std::to_string(i) + ": " + js_number(out.data()[i]) +
                    " vs " + js_number(last->values.data()[i]));
}

void check_pruning(const problem &p) {
    const problem_kind kind = p.config.kind;
    // The shipped model has W_O in every layer, but pruning is the single-layer chapters'; MLA
    // has W_O and refuses it by its kind's name.
    const bool has_w_o = p.config.output_projection && kind != problem_kind::kv_cache &&
                         kind != problem_kind::flash && kind != problem_kind::model &&
                         kind != problem_kind::mla;
    std::vector<double> changes;
    try {
        changes = prune_each_head(p);
    } catch (const std::invalid_argument &e) {
        if (has_w_o)
            finding(std::string("prune_each_head refused a kind with W_O: ") + e.what());
        check_refusal(e.what());
        return;
    }
    if (!has_w_o)
        finding("prune_each_head accepted a kind without W_O");
    if (changes.size() != p.config.num_heads)
        finding("prune_each_head gave " + std::to_string(changes.size()) + " changes");
    for (double c : changes)
        if (!(c >= 0))
            finding("prune_each_head gave a change of " + js_number(c));
}

void check_kv_bytes(const kv_cache_query &q) {
    const double fields[] = {q.seq_len,    q.d_head,          q.num_kv_heads,
                             q.num_layers, q.bytes_per_value, q.batch};
    bool valid = true;
    unsigned __int128 product = 2;
    for (int i = 0; i < 6; ++i) {
        const double v = fields[i], hi = i == 4 ? 16.0 : 4294967295.0;
        valid = valid && std::isfinite(v) && v == std::floor(v) && v >= 1 && v <= hi;
        if (valid && product <= (unsigned __int128)(1) << 64)
            product *= (unsigned __int128)(v);
    }
    const bool exact = valid && product <= (unsigned __int128)(1) << 53;
    std::uint64_t bytes = 0;
    try {
        bytes = kv_cache_bytes(q);
    } catch (const std::invalid_argument &e) {
        if (exact)
            finding(std::string("kv_cache_bytes refused a product below 2^53: ") + e.what());
        check_refusal(e.what());
        return;
    }
    if (!exact || bytes != std::uint64_t(product))
        finding("kv_cache_bytes gave " + std::to_string(bytes) +
                (exact ? " for a different product" : " for a refusal"));
}

void check_js_number(double v) {
    const std::string text = js_number(v);
    const double back = std::isnan(v) ? v : std::strtod(text.c_str(), nullptr);
    const bool same = std::isnan(v) ? text == "NaN" : back == v;
    if (!same)
        finding("js_number(" + std::to_string(v) + ") = " + text + " reads back differently");
}

void check_refusal(const std::string &message) {
    const std::size_t colon = message.find(": ");
    if (message.empty() || colon == 0 || colon == std::string::npos || colon > 60)
        finding("a refusal that names no field: \"" + message.substr(0, 200) + "\"");
}

} // namespace fuzz
