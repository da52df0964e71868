#include "attention/engine.hpp"

#include <stdexcept>

#include "attention/decode.hpp"
#include "attention/encoder.hpp"
#include "attention/flash.hpp"
#include "attention/ops.hpp"

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
    default:
        return multi_head_attention(p.params, p.config, out);
    }
}

} // namespace

trace run_traced(const problem &p) {
    check_trace_budget(p.config);
    trace t;
    compute(p, &t);
    return t;
}

matrix forward(const problem &p) {
    return compute(p, nullptr);
}

std::vector<double> prune_each_head(const problem &p) {
    const problem_kind kind = p.config.kind;
    if (!p.config.output_projection || kind == problem_kind::kv_cache ||
        kind == problem_kind::flash)
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

} // namespace attention
