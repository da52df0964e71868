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

// Each head is named for what it does; its pattern says what it does and which heads found in
// trained models it resembles (it is built, not learned, so it only resembles them).
const std::vector<designed_head> &designed_heads() {
    static const std::vector<designed_head> all{
        {"Previous token",
         "each token i attends to token i − 1. Token 0 has no token before it: all its scores "
         "are 0, so its weights are uniform, 1/T on each of the T tokens, or, under the causal "
         "mask, 1 on itself. Clark et al. (2019) found BERT heads that put most of their weight "
         "on the previous token",
         "W_Q maps position p to s·e_p, W_K maps position p to e_(p+1), so q_i · k_j = s when "
         "j = i − 1 and 0 otherwise"},
        {"Same word (duplicate token)",
         "each token attends to every occurrence of its own word, itself included: string "
         "matching, not coreference. Coreference links different words for one entity (“she” → "
         "“Marie Curie”, Clark et al.’s head 5-4 in BERT); matching the same word is the "
         "head-word-match baseline they measured that head against, and resembles the "
         "duplicate-token heads Wang et al. (2022) found in GPT-2 small",
         "W_Q maps word w to s·e_w, W_K maps word w to e_w, so q_i · k_j = s when tokens i and j "
         "are the same word"},
        {"First token (attention sink)",
         "every token attends to token 0, whatever its word: a sink chosen by position, not "
         "content. It resembles the attention sink Xiao et al. (2023) found in trained "
         "autoregressive models, whose first tokens draw large weight whatever they say. It is "
         "not a delimiter head: the heads Clark et al. (2019) saw attend to [SEP], periods and "
         "commas pick those tokens for what they are",
         "W_Q maps the constant feature to s·e_0, W_K maps position 0 to e_0, so q_i · k_j = s "
         "for j = 0 only"},
        {"Uniform (broad)",
         "every token it may see gets the same weight, so its output is their mean: easy to "
         "read. It resembles the broad "
         "heads Clark et al. (2019) found, mostly in BERT’s lower layers, which spread their "
         "weight over the whole sentence",
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
