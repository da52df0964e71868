#include "attention/engine.hpp"

#include "attention/encoder.hpp"

namespace attention {

namespace {

matrix compute(const problem &p, trace *out) {
    if (p.config.kind == problem_kind::encoder_layer)
        return encoder_layer(p.params, p.ffn, p.config, out);
    return multi_head_attention(p.params, p.config, out);
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

} // namespace attention
