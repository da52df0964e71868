#include "attention/engine.hpp"

#include "attention/attention.hpp"

namespace attention {

trace run_traced(const problem &p) {
    check_trace_budget(p.config);
    trace t;
    multi_head_attention(p.params, p.config, &t);
    return t;
}

matrix forward(const problem &p) {
    return multi_head_attention(p.params, p.config);
}

} // namespace attention
