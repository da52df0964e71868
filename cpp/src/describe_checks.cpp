#include "attention/describe_checks.hpp"

#include "attention/costs.hpp"
#include "attention/flash.hpp"

namespace attention {

namespace {

value numbers(const std::vector<double> &v) {
    value_list out(v.begin(), v.end());
    return out;
}

// Floats one head holds, whole scores against one tile and m, l: at T and at the lesson's 2048.
value floats_value(const attention_config &c) {
    constexpr std::size_t lesson_t = 2048;
    const flash_floats now = floats_held(c.seq_len, c.block_rows, c.block_cols);
    const flash_floats lesson = floats_held(lesson_t, c.block_rows, c.block_cols);
    return value_record{{"standard", now.standard},
                        {"tiled", now.tiled},
                        {"exampleSeqLen", lesson_t},
                        {"exampleStandard", lesson.standard},
                        {"exampleTiled", lesson.tiled}};
}

value costs_value(const pass_costs &p) {
    return value_record{{"projections", p.projections}, {"scores", p.scores}, {"values", p.values},
                        {"output", p.output},           {"total", p.total},   {"exps", p.exps}};
}

// Values one head moves to and from slow memory, standard and tiled: at these sizes, and in the
// lesson's 2048-token example (d_k = d_v = 64, tiles of 256 × 256: an on-chip memory of M =
// 4 · 64 · 256 = 65536 values, Dao et al.'s B = M / 4d).
value traffic_value(const attention_config &c) {
    attention_config lesson = c;
    lesson.seq_len = lesson.kv_len = 2048;
    lesson.d_k = lesson.d_v = 64;
    lesson.block_rows = lesson.block_cols = 256;
    const slow_memory_traffic now = memory_traffic(c), big = memory_traffic(lesson);
    return value_record{{"standard", now.standard},
                        {"tiled", now.tiled},
                        {"exampleSeqLen", 2048},
                        {"exampleDk", 64},
                        {"exampleBlock", 256},
                        {"exampleMemory", 4 * 64 * 256},
                        {"exampleStandard", big.standard},
                        {"exampleTiled", big.tiled}};
}

// Each head's var(S) and var(S̃) over the scores its queries see, in head order.
value score_variance_value(const std::vector<score_spread> &spreads) {
    value_list out;
    for (const score_spread &s : spreads) {
        value_record r{{"head", s.head}};
        if (s.layer)
            r.emplace_back("layer", *s.layer);
        r.emplace_back("scores", s.scores);
        r.emplace_back("scaled", s.scaled);
        r.emplace_back("entries", s.entries);
        out.push_back(std::move(r));
    }
    return out;
}

// A decoding run's per-step checks and costs: each step against the full pass, the cache's
// bytes and slots, and the multiply-adds cached and recomputed.
void add_decode_checks(value_record &o, const trace_checks &k) {
    o.emplace_back("stepDifferences", numbers(k.step_differences));
    o.emplace_back("cacheBytes", numbers(k.cache_bytes));
    o.emplace_back("cacheSlots", numbers(k.cache_slots));
    value_list held; // per step, the token each cache row holds
    for (const std::vector<double> &tokens : k.slot_tokens)
        held.push_back(numbers(tokens));
    o.emplace_back("slotTokens", std::move(held));
    o.emplace_back("macs", value_record{{"cached", numbers(k.macs_cached)},
                                        {"recomputed", numbers(k.macs_recomputed)},
                                        {"cachedSoFar", numbers(k.macs_cached_so_far)},
                                        {"recomputedSoFar", numbers(k.macs_recomputed_so_far)}});
}

// What the pass costs counted from its sizes: FlashAttention's floats and slow-memory traffic,
// or the heads against one wide head; and a causal pass's prefixes as training passes.
void add_costs(value_record &o, const trace &t) {
    if (t.config.kind == problem_kind::flash) {
        o.emplace_back("floats", floats_value(t.config));
        o.emplace_back("memoryTraffic", traffic_value(t.config));
    } else if (t.config.kind != problem_kind::kv_cache && t.config.kind != problem_kind::mla) {
        const head_split_costs split = head_split(t.config);
        o.emplace_back("headSplit", value_record{{"heads", costs_value(split.heads)},
                                                 {"single", costs_value(split.single)}});
    }
    if (t.checks.causal_prefix.empty())
        return;
    constexpr std::size_t lesson_batch = 32, lesson_t = 1024;
    const training_passes now = causal_training_passes(lesson_batch, t.config.seq_len),
                          lesson = causal_training_passes(lesson_batch, lesson_t);
    o.emplace_back("causalPrefix", numbers(t.checks.causal_prefix));
    o.emplace_back("trainingPasses", value_record{{"batch", lesson_batch},
                                                  {"withoutMask", now.without_mask},
                                                  {"withMask", now.with_mask},
                                                  {"exampleSeqLen", lesson_t},
                                                  {"exampleWithoutMask", lesson.without_mask},
                                                  {"exampleWithMask", lesson.with_mask}});
}

// The √d_k study's points: at each d_k and weight scale, the scores' spread and the gradients.
value gradient_scaling_value(const std::vector<scaling_point> &points) {
    value_list out;
    for (const scaling_point &s : points)
        out.push_back(value_record{{"dK", s.d_k},
                                   {"weightScale", s.weight_scale},
                                   {"scaled", s.scaled},
                                   {"variance", s.variance},
                                   {"maxWeight", s.max_weight},
                                   {"meanAbsDScaled", s.mean_abs_d_scaled},
                                   {"meanAbsDScores", s.mean_abs_d_scores}});
    return out;
}

// Each weight matrix's gradient entry beside the loss's slope along it.
value gradient_checks_value(const std::vector<gradient_check> &checks) {
    value_list out;
    for (const gradient_check &g : checks)
        out.push_back(value_record{{"matrix", g.matrix},
                                   {"row", g.row},
                                   {"col", g.col},
                                   {"step", g.step},
                                   {"analytic", g.analytic},
                                   {"numeric", g.numeric}});
    return out;
}

} // namespace

void add_checks(value_record &o, const trace &t) {
    const trace_checks &k = t.checks;
    if (k.max_difference)
        o.emplace_back("maxDifference", *k.max_difference);
    if (k.output_change)
        o.emplace_back("outputChange", *k.output_change);
    if (t.config.kind == problem_kind::kv_cache)
        add_decode_checks(o, k);
    add_costs(o, t);
    if (k.rope_shift)
        o.emplace_back("ropeShift", value_record{{"shift", k.rope_shift->shift},
                                                 {"qRot", k.rope_shift->q_rot},
                                                 {"scores", k.rope_shift->scores},
                                                 {"weights", k.rope_shift->weights}});
    if (k.alibi_row_shift)
        o.emplace_back("alibiRowShift", *k.alibi_row_shift);
    if (!k.softcap_change.empty())
        o.emplace_back("softcapChange", numbers(k.softcap_change));
    if (k.absorbed_difference)
        o.emplace_back("absorbedDifference", *k.absorbed_difference);
    if (k.qk_norm_bound)
        o.emplace_back("qkNormBound", *k.qk_norm_bound);
    if (!k.qk_norm_largest.empty())
        o.emplace_back("qkNormLargest", numbers(k.qk_norm_largest));
    if (!k.qk_norm_without.empty())
        o.emplace_back("qkNormWithout", numbers(k.qk_norm_without));
    if (!k.score_variance.empty())
        o.emplace_back("scoreVariance", score_variance_value(k.score_variance));
    if (!k.gradient_scaling.empty())
        o.emplace_back("gradientScaling", gradient_scaling_value(k.gradient_scaling));
    if (!k.gradient_checks.empty())
        o.emplace_back("gradientChecks", gradient_checks_value(k.gradient_checks));
}

} // namespace attention
