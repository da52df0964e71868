// The designed heads (kind designed, designed.hpp) measured on "the cat sat on the mat" and two
// other sentences, one with repeated words (in mixed case) and one without, each with and
// without the causal mask: the previous-token head, the same-word head, the attention sink and
// the broad head each show the pattern they were built for. Every looked-for key leads the
// others by designed_logit = 8 after ÷ √d_k, so its weight is e^8 / (e^8 + the other keys),
// worked out here by hand. The minimum strengths are printed (WARN) by the last test case.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "attention/designed.hpp"
#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::stage_of;

namespace {

using tokens = std::vector<std::string>;

const std::vector<std::pair<const char *, tokens>> sentences{
    {"the cat sat on the mat", {"the", "cat", "sat", "on", "the", "mat"}},
    {"repeats in mixed case", {"The", "dog", "saw", "the", "other", "dog", "and", "THE", "bird"}},
    {"no word twice", {"a", "quick", "brown", "fox", "jumps", "over", "lazy", "dogs"}},
};

// Each token's word, compared without case (ASCII), numbered in order of first appearance.
std::vector<std::size_t> word_ids(const tokens &list) {
    std::vector<std::string> seen;
    std::vector<std::size_t> ids;
    for (std::string t : list) {
        std::transform(t.begin(), t.end(), t.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        const auto at = std::find(seen.begin(), seen.end(), t);
        ids.push_back(std::size_t(at - seen.begin()));
        if (at == seen.end())
            seen.push_back(t);
    }
    return ids;
}

// What one run of the four heads shows, as minima over rows and maxima of errors.
struct measured {
    double previous = 1;      // min over i ≥ 1 of head 0's weight on i − 1
    double row0_error = 0;    // head 0, row 0 (no previous token): max |w − 1 / visible keys|
    double same_word = 1;     // min over i of head 1's weight on the occurrences of i's word
    double split_error = 0;   // head 1: max |w(i, j) − w(i, j')| over those occurrences
    double sink = 1;          // min over i of head 2's weight on token 0
    double broad_error = 0;   // head 3: max |w − 1 / visible keys|
    double formula_error = 0; // looked-for keys: max |w − m·e^8 / (m·e^8 + n − m)|
    double masked_max = 0;    // the largest weight on a key the causal mask hides
};

// m looked-for keys of n visible, each logit 8 above the other keys' 0: each one's weight.
double expected_weight(double m, double n) {
    return std::exp(designed_logit) / (m * std::exp(designed_logit) + n - m);
}

measured measure(const tokens &list, bool causal) {
    const trace t = run_traced(make_problem(specs::designed(list, causal)));
    const std::vector<std::size_t> word = word_ids(list);
    const std::size_t n_tokens = list.size();
    const auto weights = [&](int h) { return stage_of(t, stage_id::weights, h).values; };
    const matrix w0 = weights(0), w1 = weights(1), w2 = weights(2), w3 = weights(3);
    measured r;
    for (std::size_t i = 0; i < n_tokens; ++i) {
        const std::size_t n = causal ? i + 1 : n_tokens; // keys row i sees
        std::vector<double> own;                         // head 1's weights on i's word
        for (std::size_t j = 0; j < n; ++j) {
            if (word[j] == word[i])
                own.push_back(w1(i, j));
            r.broad_error = std::max(r.broad_error, std::fabs(w3(i, j) - 1.0 / double(n)));
            if (i == 0)
                r.row0_error = std::max(r.row0_error, std::fabs(w0(0, j) - 1.0 / double(n)));
        }
        for (std::size_t j = n; j < n_tokens; ++j)
            for (const matrix *w : {&w0, &w1, &w2, &w3})
                r.masked_max = std::max(r.masked_max, (*w)(i, j));
        const auto [low, high] = std::minmax_element(own.begin(), own.end());
        r.split_error = std::max(r.split_error, *high - *low);
        double sum = 0;
        for (double w : own)
            sum += w;
        r.same_word = std::min(r.same_word, sum);
        r.sink = std::min(r.sink, w2(i, 0));
        const double m = double(own.size());
        double off = std::fabs(*low - expected_weight(m, double(n)));
        off = std::max(off, std::fabs(w2(i, 0) - expected_weight(1, double(n))));
        if (i > 0) {
            r.previous = std::min(r.previous, w0(i, i - 1));
            off = std::max(off, std::fabs(w0(i, i - 1) - expected_weight(1, double(n))));
        }
        r.formula_error = std::max(r.formula_error, off);
    }
    return r;
}

// Every sentence with and without the mask: measure(…) in turn, described for INFO.
template <typename Check> void for_each_case(Check check) {
    for (const auto &[name, list] : sentences)
        for (const bool causal : {false, true}) {
            INFO(name << (causal ? ", causal" : ", bidirectional"));
            check(measure(list, causal));
        }
}

} // namespace

TEST_CASE("designed: sizes, X and W_O come from the tokens", "[designed]") {
    const problem p = make_problem(specs::designed(sentences[0].second));
    const attention_config &c = p.config;
    // T = 6 tokens, V = 5 words (the, cat, sat, on, mat), D = T + V + 1 = 12, d_k = T, d_v = V.
    CHECK((c.seq_len == 6 && c.d_model == 12 && c.d_k == 6 && c.d_v == 5));
    CHECK((c.num_heads == 4 && c.num_kv_heads == 4 && c.output_projection && !c.causal));
    // Token 4, the second "the": position 4, word 0, the constant 1 in the last column.
    for (std::size_t j = 0; j < 12; ++j)
        CHECK(p.params.x(4, j) == ((j == 4 || j == 6 || j == 11) ? 1.0 : 0.0));
    // "The" and "the" are one word; "THE" too.
    CHECK(make_problem(specs::designed({"The", "the", "THE", "cat"})).config.d_v == 2);
    // W_O: 0.25 from each head's word w to word feature w; the output is their average.
    const trace t = run_traced(p);
    const matrix &out = stage_of(t, stage_id::output).values;
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 12; ++j) {
            CAPTURE(i, j);
            const bool word = j >= 6 && j < 11; // positions and the constant get nothing
            double avg = 0;
            for (int h = 0; h < 4 && word; ++h)
                avg += 0.25 * stage_of(t, stage_id::head, h).values(i, j - 6);
            CHECK(std::fabs(out(i, j) - avg) <= 1e-15);
        }
}

TEST_CASE("designed: the heads' names, the presets and their tokens", "[designed][presets]") {
    std::vector<std::string> names;
    for (const designed_head &h : designed_heads()) {
        names.push_back(h.name);
        CHECK_FALSE(h.pattern.empty());
        CHECK_FALSE(h.construction.empty());
    }
    // Each named for what it does: matching a word is not coreference, a sink at position 0 is
    // not a delimiter head, and a uniform head is easy to read.
    CHECK(names == std::vector<std::string>{"Previous token", "Same word (duplicate token)",
                                            "First token (attention sink)", "Uniform (broad)"});
    const generated_spec full = preset("designed-heads"), causal = preset("designed-heads-causal");
    CHECK(full.tokens == sentences[0].second);
    CHECK(causal.tokens == sentences[0].second);
    CHECK((!full.causal && causal.causal));
}

TEST_CASE("designed: head 0 puts ≥ 0.9 on the previous token, row 0 is uniform", "[designed]") {
    for_each_case([](const measured &r) {
        INFO("min weight on i − 1: " << r.previous << "; row 0 off uniform by " << r.row0_error);
        CHECK(r.previous >= 0.9);
        CHECK(r.row0_error <= 1e-15);
    });
}

TEST_CASE("designed: head 1 puts ≥ 0.9 on its own word, split evenly", "[designed]") {
    for_each_case([](const measured &r) {
        INFO("min weight on the own word: " << r.same_word << "; split uneven by "
                                            << r.split_error);
        CHECK(r.same_word >= 0.9);
        CHECK(r.split_error == 0.0); // equal logits give equal weights, bit for bit
    });
}

TEST_CASE("designed: head 2 puts ≥ 0.9 on token 0 in every row", "[designed]") {
    for_each_case([](const measured &r) {
        INFO("min weight on token 0: " << r.sink);
        CHECK(r.sink >= 0.9);
    });
}

TEST_CASE("designed: head 3 is uniform, 1/T (causal: 1/(i+1)), to 1e-15", "[designed]") {
    for_each_case([](const measured &r) {
        INFO("largest |w − 1/visible|: " << r.broad_error);
        CHECK(r.broad_error <= 1e-15);
    });
}

TEST_CASE("designed: the weights are e^8 / (m·e^8 + n − m), hidden keys get 0", "[designed]") {
    for_each_case([](const measured &r) {
        INFO("largest difference from the formula: " << r.formula_error);
        CHECK(r.formula_error <= 1e-15);
        CHECK(r.masked_max == 0.0);
    });
}

TEST_CASE("designed: the measured strengths, weakest over every sentence and mask", "[designed]") {
    measured low;
    std::ostringstream each;
    for (const auto &[name, list] : sentences) {
        measured here;
        for (const bool causal : {false, true}) {
            const measured r = measure(list, causal);
            here.previous = std::min(here.previous, r.previous);
            here.same_word = std::min(here.same_word, r.same_word);
            here.sink = std::min(here.sink, r.sink);
            here.broad_error = std::max(here.broad_error, r.broad_error);
        }
        each << "\n  " << name << " (T " << list.size() << "): previous token " << here.previous
             << ", same word " << here.same_word << ", sink " << here.sink
             << ", broad max |w - 1/visible| " << here.broad_error;
        low.previous = std::min(low.previous, here.previous);
        low.same_word = std::min(low.same_word, here.same_word);
        low.sink = std::min(low.sink, here.sink);
        low.broad_error = std::max(low.broad_error, here.broad_error);
    }
    // The weakest rows see the most keys: e^8 / (e^8 + 8) for the 9 tokens of the second
    // sentence (0.99732), for one looked-for key; a word seen more often gets more.
    const double weakest = expected_weight(1, 9);
    CHECK(std::fabs(low.previous - weakest) <= 1e-15);
    CHECK(std::fabs(low.sink - weakest) <= 1e-15);
    CHECK(low.same_word >= weakest - 1e-15);
    CHECK(low.broad_error <= 1e-15);
    WARN(std::setprecision(6) << std::fixed
                              << "designed heads, minimum weight where each head looks, over "
                                 "bidirectional and causal:"
                              << each.str());
}

namespace {
bool says(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}
} // namespace

TEST_CASE("designed: each pattern says what the head resembles, and what it is not", "[designed]") {
    const std::vector<designed_head> &h = designed_heads();
    CHECK(says(h[0].pattern, "Clark et al. (2019)"));
    CHECK(says(h[1].pattern, "not coreference"));
    CHECK(says(h[1].pattern, "Wang et al. (2022)"));
    CHECK(says(h[2].pattern, "not a delimiter head"));
    CHECK(says(h[2].pattern, "Xiao et al. (2023)"));
    CHECK(says(h[3].pattern, "Clark et al. (2019)"));
}

TEST_CASE("designed: head 0's pattern says what token 0 does, and the weights agree",
          "[designed]") {
    const std::string &pattern = designed_heads()[0].pattern;
    CHECK(says(pattern, "Token 0 has no token before it"));
    CHECK(says(pattern, "1/T on each of the T tokens"));
    CHECK(says(pattern, "under the causal mask, 1 on itself"));
    for (const auto &[name, list] : sentences) {
        INFO(name);
        const std::size_t n = list.size();
        const matrix full =
            stage_of(run_traced(make_problem(specs::designed(list, false))), stage_id::weights, 0)
                .values;
        const matrix causal =
            stage_of(run_traced(make_problem(specs::designed(list, true))), stage_id::weights, 0)
                .values;
        for (std::size_t j = 0; j < n; ++j) {
            CAPTURE(j);
            CHECK(std::fabs(full(0, j) - 1.0 / double(n)) <= 1e-15);
            CHECK(causal(0, j) == (j == 0 ? 1.0 : 0.0));
        }
    }
}
