// The backward pass against central finite differences of the scalar ⟨output, dO⟩ for every
// entry of every parameter and of X, at small sizes (with and without the mask, W_O, ÷√d_k,
// grouped K/V heads, ALiBi, a window, sinusoidal positions, RoPE in both pairings); its properties
// (each row of d_scaled sums to 0, masked entries are exactly 0, grouped heads with H_kv = H are
// ordinary multi-head attention's per-head gradients); the √d_k study; dO refused by name when it
// is wrong.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>

#include "attention/backward.hpp"
#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/gradient_check.hpp"
#include "attention/gradient_scaling.hpp"
#include "attention/mask.hpp"
#include "attention/spec_reader.hpp"
#include "check.hpp"

using namespace attention;

namespace {

problem backward_problem(field_values v) {
    v.emplace("kind", std::string("backward"));
    return problem_of(problem_kind::backward, false, v, true);
}

// ⟨output, dO⟩: the loss whose gradient with respect to the output is dO.
double loss(const attention_params &p, const matrix &d_o, const attention_config &c) {
    return xt::sum(multi_head_attention(p, c) * d_o)();
}

// Every entry of m against its central difference, m an entry of p (relative ≤ 1e-6 of the
// larger of the two, or 1e-6 absolute for gradients below 1).
using pick = std::function<matrix &(attention_params &)>;

void check_entries(const std::string &name, attention_params p, const pick &entry,
                   const matrix &gradient, const matrix &d_o, const attention_config &c) {
    constexpr double step = 1e-5;
    matrix &m = entry(p);
    REQUIRE(m.shape() == gradient.shape());
    double worst = 0;
    for (std::size_t k = 0; k < m.size(); ++k) {
        const double kept = m.flat(k);
        m.flat(k) = kept + step;
        const double up = loss(p, d_o, c);
        m.flat(k) = kept - step;
        const double down = loss(p, d_o, c);
        m.flat(k) = kept;
        const double fd = (up - down) / (2 * step), g = gradient.flat(k);
        worst = std::max(worst, std::fabs(fd - g) / std::max({1.0, std::fabs(fd), std::fabs(g)}));
    }
    INFO(name << ": worst relative difference " << worst);
    CHECK(worst <= 1e-6);
}

void check_against_differences(const problem &pr) {
    const attention_config &c = pr.config;
    const attention_gradients g = attention_backward(pr.params, pr.d_output, c);
    const matrix &d_o = pr.d_output;
    INFO(check::describe(c));
    check_entries(
        "X", pr.params, [](attention_params &p) -> matrix & { return p.x; }, g.x, d_o, c);
    for (std::size_t i = 0; i < c.num_heads; ++i)
        check_entries(
            "W_Q[" + std::to_string(i) + "]", pr.params,
            [i](attention_params &p) -> matrix & { return p.w_q[i]; }, g.w_q[i], d_o, c);
    for (std::size_t h = 0; h < c.num_kv_heads; ++h) {
        check_entries(
            "W_K[" + std::to_string(h) + "]", pr.params,
            [h](attention_params &p) -> matrix & { return p.w_k[h]; }, g.w_k[h], d_o, c);
        check_entries(
            "W_V[" + std::to_string(h) + "]", pr.params,
            [h](attention_params &p) -> matrix & { return p.w_v[h]; }, g.w_v[h], d_o, c);
    }
    if (c.output_projection)
        check_entries(
            "W_O", pr.params, [](attention_params &p) -> matrix & { return p.w_o; }, g.w_o, d_o, c);
}

field_values sizes(double t, double d, double h, double h_kv) {
    return {{"seqLen", t}, {"dModel", d}, {"numHeads", h}, {"numKvHeads", h_kv}, {"seed", 7.0}};
}

field_values with(field_values v, const field_values &more) {
    for (const auto &[k, x] : more)
        v.insert_or_assign(k, x);
    return v;
}

} // namespace

TEST_CASE("backward: every gradient equals central finite differences of <output, dO>",
          "[backward][gradients]") {
    const field_values base = sizes(5, 6, 2, 2);
    const std::vector<field_values> cases{
        base,
        with(base, {{"causal", true}}),
        with(sizes(5, 8, 4, 2), {{"causal", true}}),
        with(sizes(4, 6, 3, 1), {{"outputProjection", false}}),
        with(base, {{"scaleScores", false}, {"weightScale", 1.0}}),
        with(sizes(6, 6, 2, 1), {{"alibi", true}, {"window", 3.0}}),
        with(sizes(6, 6, 2, 2),
             {{"positionalEncoding", std::string("sinusoidal")}, {"prefix", 2.0}}),
        with(sizes(6, 4, 2, 2), {{"documents", std::vector<double>{2, 4}}}),
        with(sizes(5, 8, 2, 1), {{"rope", true}, {"causal", true}}),
        with(sizes(5, 12, 2, 2), {{"rope", true},
                                  {"rope.convention", std::string("half-split")},
                                  {"rope.dims", 4.0},
                                  {"rope.offset", 3.0}}),
    };
    for (const field_values &v : cases)
        check_against_differences(backward_problem(v));
}

TEST_CASE("backward: each row of d_scaled sums to 0, and masked entries are exactly 0",
          "[backward][properties]") {
    const problem p = backward_problem(with(sizes(7, 8, 4, 2), {{"window", 3.0}, {"alibi", true}}));
    const trace t = run_traced(p);
    const row_spans seen = visible_spans(p.config);
    for (int head = 0; head < 4; ++head) {
        const stage &s = check::stage_of(t, stage_id::d_scaled, head);
        const stage &d_scores = check::stage_of(t, stage_id::d_scores, head);
        for (std::size_t i = 0; i < rows(s.values); ++i) {
            double total = 0, largest = 0;
            for (std::size_t j = 0; j < cols(s.values); ++j) {
                total += s.values(i, j);
                largest = std::max(largest, std::fabs(s.values(i, j)));
                if (j < seen[i].begin || j >= seen[i].end) {
                    CHECK(s.values(i, j) == 0.0);
                    CHECK(d_scores.values(i, j) == 0.0);
                }
            }
            CAPTURE(head, i);
            CHECK(std::fabs(total) <= 1e-12 * largest);
            CHECK(s.totals(i, 0) == Approx(total).margin(1e-15));
            CHECK((largest > 0) == (seen[i].end - seen[i].begin > 1)); // one key: A = 1, dL = 0
        }
    }
}

TEST_CASE("backward: with H_kv = H each head's gradients are that head's own, as if alone",
          "[backward][properties]") {
    const problem whole = backward_problem(with(sizes(5, 8, 2, 2), {{"causal", true}}));
    const attention_gradients g = attention_backward(whole.params, whole.d_output, whole.config);
    const matrix d_concat = matmul_bt(whole.d_output, whole.params.w_o); // (T, H·DV)
    for (std::size_t i = 0; i < 2; ++i) {
        problem alone = whole;
        attention_config &c = alone.config;
        c.num_heads = c.num_kv_heads = 1, c.output_projection = false;
        alone.params.w_q = {whole.params.w_q[i]};
        alone.params.w_k = {whole.params.w_k[i]};
        alone.params.w_v = {whole.params.w_v[i]};
        const matrix d_h = columns_of(d_concat, i * c.d_v, c.d_v);
        const attention_gradients one = attention_backward(alone.params, d_h, c);
        check::tensor("d_w_q", g.w_q[i], one.w_q[0], 1e-15);
        check::tensor("d_w_k", g.w_k[i], one.w_k[0], 1e-15);
        check::tensor("d_w_v", g.w_v[i], one.w_v[0], 1e-15);
    }
}

TEST_CASE("backward: the traced and untraced passes give the same gradients, bit for bit",
          "[backward]") {
    const problem p = backward_problem(with(sizes(6, 8, 4, 2), {{"causal", true}}));
    trace t;
    const attention_gradients traced = attention_backward(p.params, p.d_output, p.config, &t);
    const attention_gradients bare = attention_backward(p.params, p.d_output, p.config);
    check::tensor("d_x", traced.x, bare.x, 0);
    check::tensor("d_x stage", check::stage_of(t, stage_id::d_x, no_head).values, bare.x, 0);
    check::tensor("d_w_o", check::stage_of(t, stage_id::d_w_o, no_head).values, bare.w_o, 0);
    for (int h = 0; h < 4; ++h)
        check::tensor("d_w_q", check::stage_of(t, stage_id::d_w_q, h).values, bare.w_q[h], 0);
    check::tensor("d_w_k of K/V head 1", check::stage_of(t, stage_id::d_w_k, 2).values, bare.w_k[1],
                  0);
    // dO is drawn after every other draw: randn(T, D) once the weights are drawn.
    field_values self = sizes(6, 8, 4, 2);
    self.emplace("causal", true);
    self.emplace("skip", 6.0 * 8 + 4 * 8 * 2 + 2 * (2 * 8 * 2) + 8 * 8); // X, W_Q, W_K and W_V, W_O
    const problem shifted = problem_of(problem_kind::self, false, self, false);
    check::tensor("dO = the X drawn after the weights", p.d_output, shifted.params.x, 0);
}

// Untraced, the gradient products run over the keys each query sees (the trace shows the whole
// dA, so it computes every key): both give the same bits, the sign of 0 included, for every mask,
// at T = 130, past the product's 96-row blocks, where whole register tiles are left out.
TEST_CASE("backward: untraced, the visible keys alone give the traced pass's bits under every mask",
          "[backward][spans]") {
    const std::vector<double> docs{30, 70, 30}; // lengths, 130 tokens in all
    for (const field_values &extra : std::vector<field_values>{
             {{"causal", true}},
             {{"causal", true}, {"window", 9.0}, {"alibi", true}},
             {{"causal", true}, {"prefix", 40.0}},
             {{"causal", true}, {"documents", docs}},
             {{"causal", true}, {"window", 5.0}, {"rope", true}},
             {{"causal", false}}}) {
        const problem p = backward_problem(with(sizes(130, 16, 4, 2), extra));
        trace t;
        const attention_gradients traced = attention_backward(p.params, p.d_output, p.config, &t);
        const attention_gradients bare = attention_backward(p.params, p.d_output, p.config);
        std::vector<std::pair<const matrix *, const matrix *>> pairs{{&traced.x, &bare.x},
                                                                     {&traced.w_o, &bare.w_o}};
        for (std::size_t h = 0; h < 4; ++h)
            pairs.push_back({&traced.w_q[h], &bare.w_q[h]});
        for (std::size_t g = 0; g < 2; ++g) {
            pairs.push_back({&traced.w_k[g], &bare.w_k[g]});
            pairs.push_back({&traced.w_v[g], &bare.w_v[g]});
        }
        std::size_t bad = 0;
        for (const auto &[a, b] : pairs)
            bad += a->size() != b->size() ||
                   std::memcmp(a->data(), b->data(), a->size() * sizeof(double)) != 0;
        CAPTURE(extra.size(), p.config.window.value_or(0), p.config.prefix.value_or(0));
        CHECK(bad == 0);
    }
}

TEST_CASE("backward: the sqrt(d_k) study measures saturation and the gradient", "[backward]") {
    const std::vector<scaling_point> points = gradient_scaling(42);
    REQUIRE(points.size() == 16);
    for (const scaling_point &s : points) {
        CAPTURE(s.d_k, s.weight_scale, s.scaled);
        CHECK(s.max_weight > 0);
        CHECK(s.max_weight <= 1);
        CHECK(s.mean_abs_d_scores ==
              Approx(s.mean_abs_d_scaled / (s.scaled ? std::sqrt(double(s.d_k)) : 1.0)));
    }
    // At the premise's scale (unit-variance q and k components) the scaled scores keep a
    // variance near 1 at every d_k, and the unscaled ones grow with d_k.
    for (std::size_t k = 8; k < 16; k += 2) {
        CHECK(points[k].variance > 0.3);
        CHECK(points[k].variance < 3);
        CHECK(points[k + 1].variance / points[k].variance ==
              Approx(double(points[k].d_k)).epsilon(1e-12));
    }
}

TEST_CASE("backward: dOutput of the wrong shape, ragged or not finite is refused by name",
          "[backward][validation]") {
    const auto refused = [](field_values v, const std::string &message) {
        CHECK_THROWS_WITH(backward_problem(std::move(v)), message);
    };
    const row_list three_by_two{{1, 2}, {3, 4}, {5, 6}};
    refused(with(sizes(3, 4, 2, 2), {{"dOutput", three_by_two}}),
            "dOutput: shape (3, 2) should be (3, 4) (T = 3 rows, 4 columns like the output X · … "
            "· W_O (d_model))");
    refused(with(sizes(3, 4, 2, 2), {{"dOutput", row_list{{1, 2, 3, 4}, {1, 2}, {1, 2, 3, 4}}}}),
            "dOutput: row 1 has 2 values but row 0 has 4 (rows must all have the same length)");
    refused(with(sizes(2, 2, 1, 1), {{"dOutput", row_list{{1, NAN}, {1, 2}}}}),
            "dOutput[0][1]: NaN is not a finite number");
}

// Each weight gradient is the slope of the loss: the trace's check of one entry a matrix (the
// largest |dW|, read from its d_w stage) against the central difference of ℒ = ⟨O, dO⟩, within
// 1e-7 relative, in every backward preset and without W_O.
TEST_CASE("backward: one entry of each dW is the central difference of the loss",
          "[backward][gradient-check]") {
    std::vector<problem> cases;
    for (const char *id : {"backward-causal", "backward-gqa", "backward-window-alibi",
                           "backward-rope", "backward-no-scale"})
        cases.push_back(problem_of_preset(id, true));
    cases.push_back(problem_of(problem_kind::backward, false,
                               {{"seqLen", 4.0},
                                {"dModel", 8.0},
                                {"numHeads", 2.0},
                                {"weightScale", 1.0},
                                {"outputProjection", false}},
                               true));
    for (const problem &p : cases) {
        const trace t = run_traced(p);
        const std::vector<gradient_check> &checks = t.checks.gradient_checks;
        REQUIRE(checks.size() == (p.config.output_projection ? 4u : 3u));
        const stage_id ids[] = {stage_id::d_w_q, stage_id::d_w_k, stage_id::d_w_v, stage_id::d_w_o};
        for (std::size_t m = 0; m < checks.size(); ++m) {
            const gradient_check &g = checks[m];
            CAPTURE(g.matrix, g.row, g.col, g.analytic, g.numeric);
            const matrix &d_w =
                check::stage_of(t, ids[m], ids[m] == stage_id::d_w_o ? no_head : 0).values;
            CHECK(g.analytic == d_w(g.row, g.col));
            CHECK(std::abs(g.analytic) == xt::amax(xt::abs(d_w))());
            CHECK(std::abs(g.numeric - g.analytic) <= 1e-7 * std::max(1.0, std::abs(g.analytic)));
        }
    }
}
