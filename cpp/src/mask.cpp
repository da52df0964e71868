#include "attention/mask.hpp"

#include <algorithm>
#include <limits>

#include <xtensor/xbuilder.hpp>

namespace attention {

const char *name_of(mask_rule r) {
    switch (r) {
    case mask_rule::causal:
        return "causal";
    case mask_rule::prefix:
        return "prefix";
    case mask_rule::window:
        return "window";
    case mask_rule::sink_tokens:
        return "sink-tokens";
    case mask_rule::documents:
        return "documents";
    case mask_rule::padding:
        return "padding";
    }
    return "?";
}

namespace {

// Calls f(r) for each rule of c's mask in force, in visible_keys' order (no list is made: the
// spans call it once a query).
template <class F> void each_rule(const attention_config &c, F f) {
    if (causal_mask(c))
        f(c.prefix ? mask_rule::prefix : mask_rule::causal);
    if (c.window)
        f(mask_rule::window);
    if (c.sink_tokens)
        f(mask_rule::sink_tokens);
    if (!c.documents.empty())
        f(mask_rule::documents);
    if (c.valid_keys)
        f(mask_rule::padding);
}

// The first key of query i's document (its documents partition the T positions).
std::size_t document_start(const attention_config &c, std::size_t i) {
    std::size_t start = 0;
    for (std::size_t k = 0; k < c.documents.size() && i >= start + c.documents[k]; ++k)
        start += c.documents[k];
    return start;
}

// The span s with rule r applied for query i.
key_span narrow(mask_rule r, const attention_config &c, std::size_t i, key_span s) {
    switch (r) {
    case mask_rule::causal:
        s.end = std::min(s.end, i + 1);
        break;
    case mask_rule::prefix:
        s.end = std::min(s.end, std::max(i + 1, *c.prefix));
        break;
    case mask_rule::window: // the W latest keys, this one included
        s.begin = std::max(s.begin, i + 1 > *c.window ? i + 1 - *c.window : 0);
        break;
    case mask_rule::sink_tokens: // the span reaches back to the sinks; sink_gap hides the rest
        s.begin = 0;
        break;
    case mask_rule::documents:
        s.begin = std::max(s.begin, document_start(c, i));
        break;
    case mask_rule::padding:
        s.end = std::min(s.end, *c.valid_keys);
        break;
    }
    return s;
}

} // namespace

std::vector<mask_rule> mask_rules(const attention_config &c) {
    std::vector<mask_rule> rules;
    each_rule(c, [&](mask_rule r) { rules.push_back(r); });
    return rules;
}

key_span visible_keys(const attention_config &c, std::size_t i) {
    key_span s{0, c.kv_len};
    each_rule(c, [&](mask_rule r) { s = narrow(r, c, i, s); });
    return s;
}

key_span sink_gap(const attention_config &c, std::size_t i) {
    if (!c.sink_tokens)
        return {0, 0};
    const std::size_t k = *c.sink_tokens, latest = *c.window - k; // W − k latest keys
    const std::size_t end = i + 1 > latest ? i + 1 - latest : 0;
    return end > k ? key_span{k, end} : key_span{0, 0};
}

row_spans visible_spans(const attention_config &c) {
    row_spans spans(c.seq_len);
    for (std::size_t i = 0; i < c.seq_len; ++i)
        spans[i] = visible_keys(c, i);
    return spans;
}

row_spans seeing_queries(const row_spans &keys, std::size_t n_keys) {
    row_spans queries(n_keys, key_span{0, 0});
    std::vector<bool> seen(n_keys, false);
    for (std::size_t i = 0; i < keys.size(); ++i)
        for (std::size_t j = keys[i].begin; j < keys[i].end; ++j) {
            if (!seen[j])
                queries[j].begin = i, seen[j] = true;
            queries[j].end = i + 1;
        }
    return queries;
}

row_spans all_keys(std::size_t rows, std::size_t keys) {
    return row_spans(rows, key_span{0, keys});
}

matrix mask_of(const row_spans &spans, std::size_t keys) {
    const double hidden = -std::numeric_limits<double>::infinity();
    matrix m = xt::zeros<double>({spans.size(), keys}); // (T, T_kv)
    for (std::size_t i = 0; i < spans.size(); ++i)
        for (std::size_t j = 0; j < keys; ++j)
            if (j < spans[i].begin || j >= spans[i].end)
                m(i, j) = hidden;
    return m;
}

matrix mask_of(const attention_config &c, const row_spans &spans, std::size_t keys) {
    matrix m = mask_of(spans, keys); // (rows, keys)
    for (std::size_t i = 0; i < spans.size(); ++i) {
        const key_span gap = sink_gap(c, i);
        for (std::size_t j = gap.begin; j < gap.end; ++j)
            m(i, j) = -std::numeric_limits<double>::infinity();
    }
    return m;
}

matrix attention_mask(const attention_config &c) {
    return mask_of(c, visible_spans(c), c.kv_len);
}

} // namespace attention
