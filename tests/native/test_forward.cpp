// The untraced forward pass against the traced one, bit for bit (sign of zero included): the
// fused scale + mask + softmax, the scores and weights · V left out where the mask hides keys,
// Q, K and V of all heads from one product and the heads written straight into the concat must
// change no number the trace shows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <iomanip>

#include "attention/attention.hpp"
#include "attention/engine.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "attention/rng.hpp"
#include "check.hpp"
#include "oracle.hpp"
#include "specs.hpp"

using namespace attention;

namespace {

// The first flat index where a and b differ in their bits, or a.size() when none does.
std::size_t first_different_bits(const matrix &a, const matrix &b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a.flat(i), &b.flat(i), sizeof(double)) != 0)
            return i;
    return a.size();
}

void same_bits(const std::string &name, const matrix &got, const matrix &want) {
    INFO(name << ": got shape " << check::shape(got) << ", want " << check::shape(want));
    REQUIRE(got.shape() == want.shape());
    const std::size_t at = first_different_bits(got, want);
    if (at < got.size()) {
        INFO(std::setprecision(17) << "first different cell, flat " << at << ": got "
                                   << got.flat(at) << ", want " << want.flat(at));
        CHECK(at == got.size());
    }
}

// Sizes that cross the products' row blocks (64 rows) and tiles, with and without each mask.
std::vector<generated_spec> sweep() {
    std::vector<generated_spec> out;
    for (const bool causal : {false, true})
        for (const bool w_o : {false, true}) {
            out.push_back(specs::self(1, 4, 1, 4, 4, causal, w_o));      // one token
            out.push_back(specs::self(5, 16, 4, 4, 4, causal, w_o));     // the lesson's sizes
            out.push_back(specs::self(70, 24, 3, 5, 7, causal, w_o));    // √5: a real division
            out.push_back(specs::self(130, 32, 4, 8, 8, causal, w_o));   // three row blocks
            out.push_back(specs::self(67, 12, 4, 3, 2, causal, w_o, 2)); // grouped-query
            out.push_back(specs::self(65, 16, 4, 4, 4, causal, w_o, 1)); // multi-query
            out.push_back(specs::self(300, 64, 2, 32, 32, causal, w_o)); // k past one KC block
            out.push_back(
                specs::self(6, 16, 2, 4, 300, causal, w_o)); // W_O shares deeper than a sweep
        }
    out.push_back(specs::cross(3, 9, 8, 2, 4, 4, 5));
    out.push_back(specs::cross(100, 70, 16, 2, 8, 8, 1));
    out.push_back(specs::cross(70, 100, 16, 2, 8, 8, 99, false));
    out.push_back(specs::cross(66, 66, 16, 4, 4, 4));
    out.push_back(specs::pruned(specs::self(80, 16, 4, 4, 4, true), {1, 3}));
    out.push_back(specs::pruned(specs::cross(20, 90, 16, 4, 4, 4, 50), {0}));
    out.push_back(specs::encoder(70, 16, 2, 24, true));
    generated_spec unscaled = specs::self(90, 16, 2, 8, 8, true);
    unscaled.scale_scores = false;
    out.push_back(unscaled);
    generated_spec strong = specs::self(80, 16, 4, 4, 4, true); // large logits, sharp rows
    strong.weight_scale = 10;
    out.push_back(strong);
    return out;
}

} // namespace

TEST_CASE("forward: the untraced pass gives the traced output bit for bit", "[forward]") {
    for (const generated_spec &s : sweep()) {
        const problem p = make_problem(s);
        INFO(check::describe(p.config));
        if (p.config.kind == problem_kind::encoder_layer) {
            same_bits("forward = norm2", forward(p), run_traced(p).stages.back().values);
            continue;
        }
        trace t;
        const matrix traced = multi_head_attention(p.params, p.config, &t); // (T, D) or (T, H·DV)
        same_bits("forward = traced", forward(p), traced);
        // The last stage is the output: W_O's, else the heads' concat, else the one head's.
        same_bits("forward = last stage", forward(p), t.stages.back().values);
        const stage_id last = p.config.output_projection ? stage_id::output
                              : p.config.num_heads > 1   ? stage_id::concat
                                                         : stage_id::head;
        CHECK(t.stages.back().id == last);
    }
}

TEST_CASE("forward: one head's weights untraced equal the weights stage bit for bit", "[forward]") {
    for (const bool causal : {false, true})
        for (const double t : {1.0, 9.0, 64.0, 65.0, 200.0}) {
            const problem p = make_problem(specs::self(t, 12, 1, 3, 5, causal));
            INFO(check::describe(p.config));
            const attention_params &w = p.params;
            trace traced;
            traced.config = p.config;
            const head_result with =
                self_attention(w.x, w.w_q[0], w.w_k[0], w.w_v[0], p.config, &traced, 0);
            const head_result without = self_attention(w.x, w.w_q[0], w.w_k[0], w.w_v[0], p.config);
            same_bits("weights", without.weights, with.weights);
            same_bits("weights stage", without.weights,
                      check::stage_of(traced, stage_id::weights, 0).values);
            same_bits("head", without.output, with.output);
        }
}

TEST_CASE("scale and softmax over a span: softmax_rows(s / divisor + M), bit for bit",
          "[forward][ops]") {
    // Spans of every shape a mask makes: whole rows, a prefix, a band starting late, one key.
    const std::vector<key_span> spans{{0, 7}, {0, 1}, {0, 4}, {2, 6}, {6, 7}, {3, 4}};
    for (const double divisor : {1.0, 2.0, std::sqrt(3.0), 8.0}) {
        CAPTURE(divisor);
        const matrix s = numpy_random(7).randn(6, 7, 3.0); // (T, T_kv)
        const matrix want = oracle::softmax_rows(oracle::divided(s, divisor) + mask_of(spans, 7));
        matrix got = s;
        for (std::size_t i = 0; i < 6; ++i) {
            divide_row(&got(i, spans[i].begin), spans[i].end - spans[i].begin, divisor,
                       &got(i, spans[i].begin));
            softmax_span(&got(i, 0), &got(i, 0), 7, spans[i]);
        }
        same_bits("weights", got, want);
    }
}
