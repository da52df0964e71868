#include "attention/adam.hpp"

#include <cmath>

#include "attention/validation.hpp"

namespace attention {

adam_state adam_start(const model_config &c) {
    return {0, zeros_like(c), zeros_like(c)};
}

void validate_adam_state(const adam_state &s, const model_config &c, const std::string &field) {
    const double r = adam_beta1 * adam_beta1 / adam_beta2; // < 1: the sum converges
    const double reach = (1 - adam_beta1) * (1 - adam_beta1) / (1 - adam_beta2) *
                         (1 - std::pow(r, double(s.step))) / (1 - r);
    const std::vector<const matrix *> m = matrices_of(s.m), v = matrices_of(s.v);
    const std::vector<std::string> names = matrix_names(c);
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t k = 0; k < m[i]->size(); ++k) {
            const double mk = m[i]->flat(k), vk = v[i]->flat(k);
            // "v.W_E[r][c]": built only for the entry refused.
            const auto at = [&](const char *moment) {
                return field + moment + names[i] + "[" + std::to_string(k / cols(*m[i])) + "][" +
                       std::to_string(k % cols(*m[i])) + "]";
            };
            if (!std::isfinite(vk) || vk < 0)
                reject(at(".v."),
                       js_number(vk) + " is no mean of squared gradients (finite and ≥ 0)");
            if (!std::isfinite(mk) || mk * mk > reach * vk * (1 + 1e-9))
                reject(at(".m."), js_number(mk) + " is more than " + std::to_string(s.step) +
                                      " Adam step" + (s.step == 1 ? "" : "s") +
                                      " can give beside v = " + js_number(vk) + " (m² ≤ " +
                                      js_number(reach) + " · v)");
        }
}

void adam_step(model_params &p, const model_params &g, adam_state &s, double learning_rate) {
    ++s.step;
    const double t = double(s.step);
    const double correct1 = 1 - std::pow(adam_beta1, t), correct2 = 1 - std::pow(adam_beta2, t);
    const std::vector<matrix *> theta = matrices_of(p), m = matrices_of(s.m), v = matrices_of(s.v);
    const std::vector<const matrix *> grad = matrices_of(g);
    for (std::size_t i = 0; i < theta.size(); ++i)
        for (std::size_t k = 0; k < theta[i]->size(); ++k) {
            const double gk = grad[i]->flat(k);
            double &mk = m[i]->flat(k), &vk = v[i]->flat(k);
            mk = adam_beta1 * mk + (1 - adam_beta1) * gk;
            vk = adam_beta2 * vk + (1 - adam_beta2) * gk * gk;
            theta[i]->flat(k) -=
                learning_rate * (mk / correct1) / (std::sqrt(vk / correct2) + adam_epsilon);
        }
}

} // namespace attention
