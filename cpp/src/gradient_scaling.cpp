#include "attention/gradient_scaling.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xmath.hpp>

#include "attention/backward.hpp"
#include "attention/spec.hpp"

namespace attention {

std::vector<scaling_point> gradient_scaling(std::uint32_t seed) {
    std::vector<scaling_point> out;
    constexpr double d_model = 16;
    for (const double scale : {1.0, 1 / std::sqrt(d_model)})
        for (const std::size_t d_k : {4, 16, 64, 256})
            for (const bool scaled : {true, false}) {
                generated_spec s;
                s.kind = problem_kind::backward;
                s.seed = seed, s.seq_len = 32, s.d_model = d_model, s.d_k = double(d_k);
                s.output_projection = false, s.scale_scores = scaled, s.weight_scale = scale;
                const problem p = make_problem(s);
                trace t;
                attention_backward(p.params, p.d_output, p.config, &t);
                const auto values = [&](stage_id id) -> const matrix & {
                    return std::find_if(t.stages.begin(), t.stages.end(),
                                        [&](const stage &st) { return st.id == id; })
                        ->values.get();
                };
                const matrix &logits = values(stage_id::scaled), &a = values(stage_id::weights);
                const double mean = xt::mean(logits)(), count = double(logits.size());
                double largest = 0;
                for (std::size_t i = 0; i < rows(a); ++i)
                    largest += *std::max_element(&a(i, 0), &a(i, 0) + cols(a));
                out.push_back({d_k, scale, scaled, xt::sum(xt::square(logits - mean))() / count,
                               largest / double(rows(a)),
                               xt::mean(xt::abs(values(stage_id::d_scaled)))(),
                               xt::mean(xt::abs(values(stage_id::d_scores)))()});
            }
    return out;
}

} // namespace attention
