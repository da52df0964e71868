// One encoder layer: attention, a residual and layer norm, a ReLU feed-forward network, a
// residual and layer norm. A case small enough to work out by hand, then properties.
#include <catch2/catch.hpp>

#include <cmath>

#include "attention/encoder.hpp"
#include "attention/engine.hpp"
#include "attention/presets.hpp"
#include "attention/rng.hpp"
#include "check.hpp"
#include "specs.hpp"

using namespace attention;
using check::m;
using check::operand_of;
using check::stage_of;

namespace {

constexpr double eps = 1e-6;

std::vector<generated_spec> encoders() {
    return {preset("encoder-layer"), specs::encoder(4, 6, 2, 5, true), specs::encoder(1, 8, 1, 3),
            specs::encoder(7, 12, 3, 48)};
}

} // namespace

TEST_CASE("encoder: a two-token layer worked out by hand", "[encoder][known]") {
    // T = D = DK = DV = 2, one head, DFF = 3. W_Q = W_K = 0: every weight is 1/2, so with
    // W_V = W_O = I each output row is the mean of X's rows: X = [[1, 3], [3, 1]] → [2, 2].
    // residual1 = X + [2, 2] = [[3, 5], [5, 3]]: mean 4, population std 1 in both rows,
    // so with a = 1 / (1 + ε): norm1 = [[−a, a], [a, −a]].
    // ffn_pre = norm1·W1 + b1 with W1 = [[1, 0, 2], [0, 1, 0]], b1 = [0.5, −0.5, 0]:
    //   row 0 = [−a + 0.5, a − 0.5, −2a],  row 1 = [a + 0.5, −a − 0.5, 2a].
    // ffn_hidden = ReLU: row 0 = [0, a − 0.5, 0], row 1 = [a + 0.5, 0, 2a].
    // ffn_out = hidden·W2 + b2 with W2 = [[1, 0], [0, 1], [1, 1]], b2 = [0, 1]:
    //   row 0 = [0, a − 0.5] + [0, 1] = [0, a + 0.5];  row 1 = [3a + 0.5, 2a] + [0, 1].
    // residual2 = norm1 + ffn_out: row 0 = [−a, 2a + 0.5], row 1 = [4a + 0.5, a + 1].
    // norm2: two values x0, x1 have std |x1 − x0| / 2 = s, so they become ∓s / (s + ε).
    attention_config c;
    c.kind = problem_kind::encoder_layer;
    c.seq_len = c.kv_len = 2, c.d_model = 2, c.num_heads = c.num_kv_heads = 1;
    c.d_k = c.d_v = 2, c.d_ff = 3, c.output_projection = true;
    attention_params p;
    p.x = m({{1, 3}, {3, 1}});
    p.w_q = p.w_k = {m({{0, 0}, {0, 0}})};
    p.w_v = {m({{1, 0}, {0, 1}})};
    p.w_o = m({{1, 0}, {0, 1}});
    const ffn_params f{m({{1, 0, 2}, {0, 1, 0}}), m({{0.5, -0.5, 0}}), m({{1, 0}, {0, 1}, {1, 1}}),
                       m({{0, 1}})};
    trace t;
    const matrix out = encoder_layer(p, f, c, &t);

    const double a = 1 / (1 + eps);
    const double s0 = (3 * a + 0.5) / 2, s1 = (3 * a - 0.5) / 2; // half of each row's spread
    const double n0 = s0 / (s0 + eps), n1 = s1 / (s1 + eps);
    check::tensor("output", stage_of(t, stage_id::output).values, m({{2, 2}, {2, 2}}), 0);
    check::tensor("residual1", stage_of(t, stage_id::residual1).values, m({{3, 5}, {5, 3}}), 0);
    check::tensor("norm1", stage_of(t, stage_id::norm1).values, m({{-a, a}, {a, -a}}), 1e-15);
    check::tensor("ffn_pre", stage_of(t, stage_id::ffn_pre).values,
                  m({{-a + 0.5, a - 0.5, -2 * a}, {a + 0.5, -a - 0.5, 2 * a}}), 1e-15);
    check::tensor("ffn_hidden", stage_of(t, stage_id::ffn_hidden).values,
                  m({{0, a - 0.5, 0}, {a + 0.5, 0, 2 * a}}), 1e-15);
    check::tensor("ffn_out", stage_of(t, stage_id::ffn_out).values,
                  m({{0, a + 0.5}, {3 * a + 0.5, 2 * a + 1}}), 1e-15);
    check::tensor("residual2", stage_of(t, stage_id::residual2).values,
                  m({{-a, 2 * a + 0.5}, {4 * a + 0.5, a + 1}}), 1e-15);
    check::tensor("norm2", stage_of(t, stage_id::norm2).values, m({{-n0, n0}, {n1, -n1}}), 1e-15);
    check::tensor("returned = norm2", out, stage_of(t, stage_id::norm2).values, 0);
}

TEST_CASE("encoder: residuals are sums of their two operands", "[encoder][property]") {
    for (const generated_spec &s : encoders()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        const trace t = run_traced(p);
        const stage &r1 = stage_of(t, stage_id::residual1), &r2 = stage_of(t, stage_id::residual2);
        const matrix &output = stage_of(t, stage_id::output).values;
        check::tensor("residual1 = X + output", r1.values, p.params.x + output, 0);
        check::tensor("X operand", operand_of(r1, "X", no_head), p.params.x, 0);
        check::tensor("output operand", operand_of(r1, "output", no_head), output, 0);
        const matrix &norm1 = stage_of(t, stage_id::norm1).values;
        const matrix &ffn_out = stage_of(t, stage_id::ffn_out).values;
        check::tensor("residual2 = norm1 + ffn_out", r2.values, norm1 + ffn_out, 0);
        check::tensor("norm1 operand", operand_of(r2, "norm1", no_head), norm1, 0);
    }
}

TEST_CASE("encoder: layer norms use the population std plus eps", "[encoder][property]") {
    // An independent layer norm: (x − mean) / (√(Σ (x − mean)² / D) + 1e-6), row by row.
    for (const generated_spec &s : encoders()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        for (const auto &[norm, input] : {std::pair{stage_id::norm1, stage_id::residual1},
                                          std::pair{stage_id::norm2, stage_id::residual2}}) {
            CAPTURE(name_of(norm));
            const matrix &x = stage_of(t, input).values;
            matrix want(x.shape());
            for (std::size_t i = 0; i < rows(x); ++i) {
                double mean = 0, var = 0;
                for (std::size_t j = 0; j < cols(x); ++j)
                    mean += x(i, j) / double(cols(x));
                for (std::size_t j = 0; j < cols(x); ++j)
                    var += (x(i, j) - mean) * (x(i, j) - mean) / double(cols(x));
                for (std::size_t j = 0; j < cols(x); ++j)
                    want(i, j) = (x(i, j) - mean) / (std::sqrt(var) + eps);
            }
            check::tensor(name_of(norm), stage_of(t, norm).values, want, 1e-12);
        }
    }
}

TEST_CASE("encoder: norm2 rows have mean 0 and population std 1", "[encoder][property]") {
    for (const generated_spec &s : encoders()) {
        const trace t = run_traced(make_problem(s));
        INFO(check::describe(t.config));
        const matrix &y = stage_of(t, stage_id::norm2).values;
        for (std::size_t i = 0; i < rows(y); ++i) {
            double mean = 0, var = 0;
            for (std::size_t j = 0; j < cols(y); ++j)
                mean += y(i, j) / double(cols(y));
            for (std::size_t j = 0; j < cols(y); ++j)
                var += (y(i, j) - mean) * (y(i, j) - mean) / double(cols(y));
            CAPTURE(i, mean, var);
            CHECK(std::fabs(mean) <= 1e-12);
            // std = σ / (σ + ε) ≈ 1 − ε / σ: within 1e-5 for rows whose σ is not tiny.
            CHECK(std::fabs(std::sqrt(var) - 1.0) <= 1e-5);
        }
    }
}

TEST_CASE("encoder: the FFN is norm1·W1 + b1, ReLU, then ·W2 + b2", "[encoder][property]") {
    for (const generated_spec &s : encoders()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        const trace t = run_traced(p);
        const matrix &pre = stage_of(t, stage_id::ffn_pre).values;
        const matrix &hidden = stage_of(t, stage_id::ffn_hidden).values;
        matrix want_pre = check::naive_matmul(stage_of(t, stage_id::norm1).values, p.ffn.w1);
        matrix want_hidden = want_pre, want_out = check::naive_matmul(hidden, p.ffn.w2);
        for (std::size_t i = 0; i < rows(pre); ++i) {
            for (std::size_t j = 0; j < cols(pre); ++j) {
                want_pre(i, j) += p.ffn.b1(0, j);
                want_hidden(i, j) = pre(i, j) > 0 ? pre(i, j) : 0.0;
            }
            for (std::size_t j = 0; j < cols(want_out); ++j)
                want_out(i, j) += p.ffn.b2(0, j);
        }
        check::tensor("ffn_pre", pre, want_pre, 1e-12);
        check::tensor("ffn_hidden = max(0, ffn_pre)", hidden, want_hidden, 0);
        check::tensor("ffn_out", stage_of(t, stage_id::ffn_out).values, want_out, 1e-12);
    }
}

TEST_CASE("encoder: forward returns the norm2 stage", "[encoder]") {
    for (const generated_spec &s : encoders()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        check::tensor("forward = norm2", forward(p),
                      stage_of(run_traced(p), stage_id::norm2).values, 0);
    }
}

TEST_CASE("encoder: W1, W2, b1, b2 are drawn after W_O", "[encoder][rng]") {
    // T = 3, D = 4, H = 2 (DK = DV = 2), DFF = 6.
    const problem p = make_problem(specs::encoder(3, 4, 2, 6));
    CHECK(p.config.d_k == 2);
    CHECK(p.config.output_projection);
    numpy_random rng(42);
    check::tensor("X", p.params.x, rng.randn(3, 4), 0);
    for (int i = 0; i < 3 * 2; ++i) // W_Q ×2, W_K ×2, W_V ×2
        rng.randn(4, 2);
    check::tensor("W_O", p.params.w_o, rng.randn(4, 4) * 0.1, 0);
    check::tensor("W1", p.ffn.w1, rng.randn(4, 6) * 0.1, 0);
    check::tensor("W2", p.ffn.w2, rng.randn(6, 4) * 0.1, 0);
    check::tensor("b1", p.ffn.b1, rng.randn(1, 6) * 0.1, 0);
    check::tensor("b2", p.ffn.b2, rng.randn(1, 4) * 0.1, 0);
}

TEST_CASE("encoder: dFF defaults to 4 · dModel and W_O is always on", "[encoder]") {
    generated_spec s = specs::encoder(2, 8, 2, 0);
    s.d_ff.reset();
    s.output_projection = false;
    const problem p = make_problem(s);
    CHECK(p.config.d_ff == 32);
    CHECK(p.config.output_projection);
    CHECK(check::shape(p.ffn.w1) == "(8, 32)");
}
