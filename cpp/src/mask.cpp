#include "attention/mask.hpp"

#include <algorithm>
#include <limits>

#include <xtensor/xbuilder.hpp>

namespace attention {

key_span visible_keys(const attention_config &c, std::size_t i) {
    key_span s{0, c.kv_len};
    if (causal_mask(c))
        s.end = std::min(s.end, i + 1);
    if (c.prefix && i < *c.prefix) // the prefix sees all of itself
        s.end = *c.prefix;
    if (c.window && i + 1 > *c.window) // the W latest keys, this one included
        s.begin = i + 1 - *c.window;
    for (std::size_t start = 0, k = 0; k < c.documents.size(); start += c.documents[k++])
        if (i < start + c.documents[k]) { // i's own document, from its first token
            s.begin = std::max(s.begin, start);
            break;
        }
    if (c.valid_keys)
        s.end = std::min(s.end, *c.valid_keys);
    return s;
}

row_spans visible_spans(const attention_config &c) {
    row_spans spans(c.seq_len);
    for (std::size_t i = 0; i < c.seq_len; ++i)
        spans[i] = visible_keys(c, i);
    return spans;
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

matrix attention_mask(const attention_config &c) {
    return mask_of(visible_spans(c), c.kv_len);
}

} // namespace attention
