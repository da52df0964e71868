// explain_cell: every cell of every dot-product stage is the sum of its terms, every
// weight is its softmax parts, every concat cell points at the head column it came from.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/engine.hpp"
#include "attention/explain.hpp"
#include "attention/spec.hpp"

using namespace attention;

namespace {

std::vector<generated_spec> specs() {
    std::vector<generated_spec> out;
    for (const char *name : {"lesson-self-attention", "lesson-multi-head", "lesson-causal"})
        out.push_back(preset(name));
    generated_spec odd; // d_k ≠ d_v, causal, unscaled, with W_O
    odd.seq_len = 6, odd.d_model = 9, odd.num_heads = 3, odd.d_k = 2, odd.d_v = 5;
    odd.causal = true, odd.scale_scores = false;
    out.push_back(odd);
    return out;
}

// The dot-product length each stage's terms must have.
std::size_t inner_length(const std::string &id, const attention_config &c) {
    if (id == "q" || id == "k" || id == "v")
        return c.d_model;
    if (id == "scores" || id == "scaled")
        return c.d_k;
    if (id == "head")
        return c.seq_len;
    return c.num_heads * c.d_v; // output
}

} // namespace

TEST_CASE("explain: dot-product cells are the sum of their terms", "[explain]") {
    for (const generated_spec &s : specs()) {
        const trace t = run_traced(make_problem(s));
        const attention_config &c = t.config;
        for (const stage &st : t.stages) {
            const std::string &id = st.id;
            if (id != "q" && id != "k" && id != "v" && id != "scores" && id != "scaled" &&
                id != "head" && id != "output")
                continue;
            for (std::size_t i = 0; i < rows(st.values); ++i)
                for (std::size_t j = 0; j < cols(st.values); ++j) {
                    INFO("T " << c.seq_len << " D " << c.d_model << " H " << c.num_heads << ": "
                              << id << " head " << st.head << " cell (" << i << ", " << j << ")");
                    const cell_explanation e = explain_cell(t, id, st.head, i, j);
                    CHECK(e.value == st.values(i, j));
                    REQUIRE(e.terms.size() == inner_length(id, c));
                    double sum = 0;
                    std::size_t wrong_products = 0;
                    for (const product_term &term : e.terms) {
                        wrong_products += term.a * term.b != term.product;
                        sum += term.product;
                    }
                    CHECK(wrong_products == 0);
                    CHECK(sum == e.sum); // summed in the order listed
                    const double want_divisor =
                        id == "scaled" && c.scale_scores ? std::sqrt(double(c.d_k)) : 1.0;
                    CHECK(e.divisor == want_divisor);
                    CAPTURE(e.sum, e.divisor, e.value);
                    CHECK(std::fabs(e.sum / e.divisor - e.value) <= 1e-12);
                    CHECK_FALSE(e.softmax.has_value());
                }
        }
    }
}

TEST_CASE("explain: weights are exps[col] / expSum and masked cells have exp 0", "[explain]") {
    for (const generated_spec &s : specs()) {
        const trace t = run_traced(make_problem(s));
        for (const stage &st : t.stages) {
            if (st.id != "weights" && st.id != "masked")
                continue;
            const matrix &logits = st.operands.at(0).values;
            for (std::size_t i = 0; i < rows(st.values); ++i)
                for (std::size_t j = 0; j < cols(st.values); ++j) {
                    INFO(st.id << " head " << st.head << " cell (" << i << ", " << j << ")"
                               << (t.config.causal ? ", causal" : ""));
                    const cell_explanation e = explain_cell(t, st.id, st.head, i, j);
                    CHECK(e.value == st.values(i, j));
                    CHECK(e.masked == (t.config.causal && j > i));
                    CHECK(e.terms.empty());
                    if (st.id == "masked") {
                        CHECK_FALSE(e.softmax.has_value());
                        continue;
                    }
                    REQUIRE(e.softmax.has_value());
                    const softmax_parts &p = *e.softmax;
                    REQUIRE(p.logits.size() == t.config.seq_len);
                    REQUIRE(p.exps.size() == t.config.seq_len);
                    double max = -INFINITY, sum = 0;
                    for (std::size_t k = 0; k < p.logits.size(); ++k) {
                        CHECK(p.logits[k] == logits(i, k));
                        max = std::max(max, p.logits[k]);
                        sum += p.exps[k];
                    }
                    CHECK(p.max == max);
                    CHECK(p.exp_sum == sum);
                    CHECK(p.exps[j] / p.exp_sum == e.value);
                    if (e.masked)
                        CHECK(p.exps[j] == 0.0);
                }
        }
    }
}

TEST_CASE("explain: concat cells point at their head's column", "[explain]") {
    for (const generated_spec &s : specs()) {
        const trace t = run_traced(make_problem(s));
        const stage *concat = nullptr;
        for (const stage &st : t.stages)
            if (st.id == "concat")
                concat = &st;
        if (!concat)
            continue;
        for (std::size_t i = 0; i < rows(concat->values); ++i)
            for (std::size_t j = 0; j < cols(concat->values); ++j) {
                CAPTURE(t.config.d_v, i, j);
                const cell_explanation e = explain_cell(t, "concat", no_head, i, j);
                REQUIRE(e.source_head != no_head);
                CHECK(e.source_head == int(j / t.config.d_v));
                CHECK(e.source_col == j % t.config.d_v);
                const stage *head = nullptr;
                for (const stage &st : t.stages)
                    if (st.id == "head" && st.head == e.source_head)
                        head = &st;
                REQUIRE(head);
                CHECK(head->values(i, e.source_col) == e.value);
                CHECK(e.value == concat->values(i, j));
            }
    }
}

TEST_CASE("explain: x cells carry only their value", "[explain]") {
    const trace t = run_traced(make_problem(preset("lesson-multi-head")));
    const cell_explanation e = explain_cell(t, "x", no_head, 4, 15);
    CHECK(e.value == t.stages.front().values(4, 15));
    CHECK(e.terms.empty());
    CHECK_FALSE(e.softmax.has_value());
    CHECK(e.source_head == no_head);
}
