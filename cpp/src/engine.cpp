#include "attention/engine.hpp"

#include "attention/decode.hpp"
#include "attention/encoder.hpp"
#include "attention/flash.hpp"

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

} // namespace attention
