#include "attention/budget.hpp"

#include <string>

#include "attention/backward.hpp"
#include "attention/decode.hpp"
#include "attention/encoder.hpp"
#include "attention/flash.hpp"
#include "attention/model_pass.hpp"
#include "attention/passes.hpp"
#include "attention/validation.hpp"

namespace attention {

std::size_t trace_value_count(const attention_config &c) {
    switch (c.kind) {
    case problem_kind::kv_cache:
        return decode_values(c);
    case problem_kind::flash:
        return flash_values(c);
    case problem_kind::encoder_layer:
        return attention_values(c) + encoder_values(c);
    case problem_kind::backward:
        return attention_values(c) + backward_values(c);
    case problem_kind::model:
        return model_values(c);
    default: // self, cross, designed
        return attention_values(c);
    }
}

void check_trace_budget(const attention_config &c) {
    const std::size_t values = trace_value_count(c);
    if (values > limits::max_trace_values)
        reject("trace", std::to_string(c.seq_len) + " tokens and " + std::to_string(c.num_heads) +
                            " heads need " + std::to_string(values) +
                            " values, above the trace budget of " +
                            std::to_string(limits::max_trace_values) +
                            " (128 MiB); use fewer tokens or heads");
}

} // namespace attention
