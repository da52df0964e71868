#include "attention/designed.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <xtensor/xbuilder.hpp>

namespace attention {

namespace {

std::string lower(std::string word) {
    for (char &ch : word)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return word;
}

// The index of each token's word among the distinct words, in order of first appearance.
std::vector<std::size_t> word_ids(const std::vector<std::string> &tokens, std::size_t *distinct) {
    std::vector<std::string> words;
    std::vector<std::size_t> ids;
    for (const std::string &t : tokens) {
        const auto at = std::find(words.begin(), words.end(), lower(t));
        ids.push_back(std::size_t(at - words.begin()));
        if (at == words.end())
            words.push_back(lower(t));
    }
    *distinct = words.size();
    return ids;
}

} // namespace

const std::vector<designed_head> &designed_heads() {
    static const std::vector<designed_head> all{
        {"Positional", "previous token: token i attends to token i − 1",
         "W_Q maps position p to s·e_p, W_K maps position p to e_(p+1), so q_i · k_j = s when "
         "j = i − 1 and 0 otherwise"},
        {"Coreference (same word)", "same word: each token attends to every occurrence of its word",
         "W_Q maps word w to s·e_w, W_K maps word w to e_w, so q_i · k_j = s when tokens i and j "
         "are the same word"},
        {"Separator/delimiter (attention sink)", "first token: every token attends to token 0",
         "W_Q maps the constant feature to s·e_0, W_K maps position 0 to e_0, so q_i · k_j = s "
         "for j = 0 only"},
        {"Not all heads are interpretable (broad)",
         "uniform: every visible token gets the same weight",
         "W_Q = 0, so every score is 0 and the softmax spreads the weight evenly"},
    };
    return all;
}

attention_params designed_params(const std::vector<std::string> &tokens) {
    const std::size_t t = tokens.size();
    std::size_t v = 0;
    const std::vector<std::size_t> word = word_ids(tokens, &v);
    const std::size_t d = t + v + 1, dk = t, bias = t + v; // features: positions, words, 1
    // s · 1 ÷ √DK = designed_logit: the looked-for key leads the others by that many nats.
    const double s = designed_logit * std::sqrt(double(dk));
    attention_params p;
    p.x = xt::zeros<double>({t, d}); // (T, D)
    for (std::size_t i = 0; i < t; ++i) {
        p.x(i, i) = 1.0;
        p.x(i, t + word[i]) = 1.0;
        p.x(i, bias) = 1.0;
    }
    for (std::size_t h = 0; h < 4; ++h) {
        p.w_q.push_back(xt::zeros<double>({d, dk}));
        p.w_k.push_back(xt::zeros<double>({d, dk}));
    }
    for (std::size_t pos = 0; pos < t; ++pos) { // head 0: previous token
        p.w_q[0](pos, pos) = s;
        if (pos + 1 < t)
            p.w_k[0](pos, pos + 1) = 1.0;
    }
    for (std::size_t w = 0; w < v; ++w) { // head 1: same word
        p.w_q[1](t + w, w) = s;
        p.w_k[1](t + w, w) = 1.0;
    }
    p.w_q[2](bias, 0) = s; // head 2: the first token
    p.w_k[2](0, 0) = 1.0;
    matrix w_v = xt::zeros<double>({d, v}); // (D, V): a token's value is its word
    for (std::size_t w = 0; w < v; ++w)
        w_v(t + w, w) = 1.0;
    p.w_v.assign(4, w_v);
    p.w_o = xt::zeros<double>({4 * v, d}); // (4·V, D): the heads' words, averaged
    for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t w = 0; w < v; ++w)
            p.w_o(h * v + w, t + w) = 0.25;
    return p;
}

} // namespace attention
