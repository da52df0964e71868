#include "attention/checkpoints.hpp"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "attention/message_text.hpp"
#include "attention/train.hpp"

namespace attention {

namespace {

// The trained weights' float64 bits, in matrices_of's order.
const std::uint64_t trained_bits[] = {
#include "checkpoint_induction.inc"
};

model trained_model() {
    const train_spec spec = default_train_spec(task_kind::induction);
    model m{spec.config, zeros_like(spec.config)};
    std::size_t at = 0;
    for (matrix *w : matrices_of(m.params))
        for (double &x : *w) {
            if (at == std::size(trained_bits))
                throw std::logic_error("checkpoint_induction.inc holds fewer weights than the run");
            std::memcpy(&x, &trained_bits[at++], sizeof x);
        }
    if (at != std::size(trained_bits))
        throw std::logic_error("checkpoint_induction.inc holds more weights than the run");
    return m;
}

} // namespace

const model &shipped_model(const std::string &checkpoint) {
    if (checkpoint == "trained") {
        static const model trained = trained_model();
        return trained;
    }
    if (checkpoint == "untrained") {
        const train_spec spec = default_train_spec(task_kind::induction);
        static const model drawn = init_model(spec.config, spec.seed);
        return drawn;
    }
    throw std::invalid_argument("checkpoint: " + quoted_for_message(checkpoint) +
                                " is not one of " + checkpoint_names());
}

const char *checkpoint_names() {
    return "trained, untrained";
}

} // namespace attention
