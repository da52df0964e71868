#include "attention/score_variance.hpp"

#include <map>

#include "attention/mask.hpp"

namespace attention {

namespace {

// The entries of a (rows, keys) score stage the queries see: c's spans for a whole pass, every
// key for a decode step (its one row reads the cache, which holds only what it may see).
row_spans seen(const attention_config &c, std::size_t rows, std::size_t keys) {
    if (c.kind == problem_kind::kv_cache || rows != c.seq_len || keys != c.kv_len)
        return all_keys(rows, keys);
    return visible_spans(c);
}

// The seen entries of every stage of one head, in order.
std::vector<double> pooled(const attention_config &c, const std::vector<const stage *> &stages) {
    std::vector<double> out;
    for (const stage *s : stages) {
        const matrix &m = s->values;
        const row_spans spans = seen(c, rows(m), cols(m));
        for (std::size_t i = 0; i < rows(m); ++i)
            for (std::size_t j = spans[i].begin; j < spans[i].end; ++j)
                out.push_back(m(i, j));
    }
    return out;
}

// Two passes (the mean, then the squared deviations): no cancellation between large sums.
double variance(const std::vector<double> &v) {
    double sum = 0;
    for (const double x : v)
        sum += x;
    const double mean = sum / double(v.size());
    double squares = 0;
    for (const double x : v)
        squares += (x - mean) * (x - mean);
    return squares / double(v.size());
}

} // namespace

std::vector<score_spread> score_variances(const trace &t) {
    // A model's trace holds head n once per layer (step = layer): its heads are (layer, head).
    // Elsewhere a head's stages pool into one (a decode's steps).
    const bool layered = t.config.kind == problem_kind::model;
    using head_key = std::pair<int, int>; // (layer or no_step, query head)
    std::map<head_key, std::vector<const stage *>> scores, scaled;
    for (const stage &s : t.stages) {
        const head_key key{layered ? s.step : no_step, s.head};
        if (s.id == stage_id::scores)
            scores[key].push_back(&s);
        else if (s.id == stage_id::scaled)
            scaled[key].push_back(&s);
    }
    std::vector<score_spread> out;
    for (const auto &[key, list] : scores) {
        const std::vector<double> s = pooled(t.config, list);
        const std::vector<double> s_tilde = pooled(t.config, scaled[key]);
        if (s.empty() || s.size() != s_tilde.size())
            continue;
        const auto [layer, head] = key;
        out.push_back({std::size_t(head),
                       layered ? std::optional<std::size_t>(layer) : std::nullopt, variance(s),
                       variance(s_tilde), s.size()});
    }
    return out;
}

} // namespace attention
