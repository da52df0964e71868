// The stage table: one entry per enum value, in order, each with a distinct name that
// stage_named reads back; the rules each stage is explained and written by.
#include <catch2/catch.hpp>

#include <set>

#include "attention/stages.hpp"

using namespace attention;

namespace {

// Every enum value, from the first to the last (pruned: the table asserts it is the last).
std::vector<stage_id> all_ids() {
    std::vector<stage_id> out;
    for (int i = 0; i <= int(stage_id::pruned); ++i)
        out.push_back(stage_id(i));
    return out;
}

} // namespace

TEST_CASE("stages: every enum value has its own entry and a distinct name", "[stages]") {
    std::set<std::string> names;
    for (const stage_id id : all_ids()) {
        CAPTURE(int(id));
        CHECK(entry(id).id == id);
        REQUIRE(name_of(id) != nullptr);
        CHECK(std::string(name_of(id)).size() > 0);
        names.insert(name_of(id));
    }
    CHECK(names.size() == all_ids().size());
    // 20 of attention and the encoder, 7 of decoding, 6 of tiles, 1 of pruning
    CHECK(all_ids().size() == 34);
}

TEST_CASE("stages: stage_named reads every name back", "[stages]") {
    for (const stage_id id : all_ids()) {
        CAPTURE(name_of(id));
        const std::optional<stage_id> back = stage_named(name_of(id));
        REQUIRE(back.has_value());
        CHECK(*back == id);
    }
}

TEST_CASE("stages: unknown names give nullopt", "[stages]") {
    for (const char *name : {"", "nope", "Scores", "scores ", " x", "W_Q", "mask", "norm", "ffn",
                             "tile", "k_cache ", "K_cache", "x_T", "block", "causal"}) {
        CAPTURE(name);
        CHECK_FALSE(stage_named(name).has_value());
    }
}

TEST_CASE("stages: the names JS and the fixtures use", "[stages]") {
    CHECK(stage_names() ==
          "x, x_q, x_kv, q, k, v, scores, scaled, masked, weights, head, concat, "
          "output, residual1, norm1, ffn_pre, ffn_hidden, ffn_out, residual2, "
          "norm2, x_t, k_new, v_new, k_cache, v_cache, stacked, causal_reference, "
          "tile_scores, tile_max, tile_sum, tile_out, block_out, reference, pruned");
    CHECK(std::string(name_of(stage_id::ffn_hidden)) == "ffn_hidden");
    CHECK(std::string(name_of(stage_id::x_kv)) == "x_kv");
    CHECK(std::string(name_of(stage_id::causal_reference)) == "causal_reference");
    CHECK(std::string(name_of(stage_id::tile_scores)) == "tile_scores");
    CHECK(std::string(name_of(stage_id::pruned)) == "pruned");
}

TEST_CASE("stages: each stage is explained by the rule of its math", "[stages]") {
    // The lesson's formulas: projections and products are dot products, scores read K's rows,
    // the FFN's layers add a bias, the inputs are drawn rather than computed. Decoding's new
    // key and value are projections, its caches and the stacked rows are copies; a tile's
    // scores are scaled dot products of rows, then the online softmax's max, sum and output.
    // Pruning multiplies each column of the concat by its head's gate, 1 or 0.
    const std::pair<stage_id, cell_rule> rules[] = {
        {stage_id::x, cell_rule::none},
        {stage_id::x_q, cell_rule::none},
        {stage_id::x_kv, cell_rule::none},
        {stage_id::q, cell_rule::dot},
        {stage_id::k, cell_rule::dot},
        {stage_id::v, cell_rule::dot},
        {stage_id::scores, cell_rule::dot_rows},
        {stage_id::scaled, cell_rule::scaled_dot},
        {stage_id::masked, cell_rule::mask},
        {stage_id::weights, cell_rule::softmax},
        {stage_id::head, cell_rule::dot},
        {stage_id::concat, cell_rule::copy_column},
        {stage_id::output, cell_rule::dot},
        {stage_id::residual1, cell_rule::sum},
        {stage_id::norm1, cell_rule::norm},
        {stage_id::ffn_pre, cell_rule::affine},
        {stage_id::ffn_hidden, cell_rule::relu},
        {stage_id::ffn_out, cell_rule::affine},
        {stage_id::residual2, cell_rule::sum},
        {stage_id::norm2, cell_rule::norm},
        {stage_id::x_t, cell_rule::none},
        {stage_id::k_new, cell_rule::dot},
        {stage_id::v_new, cell_rule::dot},
        {stage_id::k_cache, cell_rule::none},
        {stage_id::v_cache, cell_rule::none},
        {stage_id::stacked, cell_rule::none},
        {stage_id::causal_reference, cell_rule::none},
        {stage_id::tile_scores, cell_rule::scaled_dot_rows},
        {stage_id::tile_max, cell_rule::running_max},
        {stage_id::tile_sum, cell_rule::running_sum},
        {stage_id::tile_out, cell_rule::running_out},
        {stage_id::block_out, cell_rule::divide_rows},
        {stage_id::reference, cell_rule::none},
        {stage_id::pruned, cell_rule::gate}};
    CHECK(std::size(rules) == all_ids().size());
    for (const auto &[id, rule] : rules) {
        CAPTURE(name_of(id));
        CHECK(entry(id).cell == rule);
    }
}

TEST_CASE("stages: only the weights carry row totals", "[stages]") {
    for (const stage_id id : all_ids()) {
        CAPTURE(name_of(id));
        CHECK(entry(id).row_totals == (id == stage_id::weights));
    }
}
