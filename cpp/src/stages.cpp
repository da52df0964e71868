#include "attention/stages.hpp"

#include <iterator>

namespace attention {

namespace {

using s = stage_id;
using cell = cell_rule;

constexpr const char *input = "($0, $1)";
constexpr const char *product = "($0, $1) @ ($1, $2) → ($0, $2)";
constexpr const char *affine = "($0, $1) @ ($1, $2) + ($2) → ($0, $2)";
constexpr const char *sum = "($0, $1) + ($0, $1) → ($0, $1)";
constexpr const char *append = "[($0, $1); ($2, $1)] → ($3, $1)";

// In enum order: entry(id) indexes it directly (checked below).
constexpr stage_entry table[] = {
    {s::x, "x", input, 0, 1, cell::none, false},
    {s::x_q, "x_q", input, 0, 1, cell::none, false},
    {s::x_kv, "x_kv", input, 0, 1, cell::none, false},
    {s::q, "q", product, 0, 2, cell::dot, false},
    {s::k, "k", product, 0, 2, cell::dot, false},
    {s::v, "v", product, 0, 2, cell::dot, false},
    {s::scores, "scores", product, 0, 2, cell::dot_rows, false},
    {s::scaled, "scaled", "($0, $1) ÷ $s2 → ($0, $1)", 0, 1, cell::scaled_dot, false},
    {s::masked, "masked", sum, 0, 1, cell::mask, false},
    {s::weights, "weights", "softmax($0, $1) → ($0, $1)", 0, 1, cell::softmax, true},
    {s::head, "head", product, 0, 2, cell::dot, false},
    {s::concat, "concat", "$0 × ($1, $2) → ($1, $3)", 1, 3, cell::copy_column, false},
    {s::output, "output", product, 0, 2, cell::dot, false},
    {s::residual1, "residual1", sum, 0, 1, cell::sum, false},
    {s::norm1, "norm1", "norm($0, $1) → ($0, $1)", 0, 1, cell::norm, false},
    {s::ffn_pre, "ffn_pre", affine, 0, 2, cell::affine, false},
    {s::ffn_hidden, "ffn_hidden", "ReLU($0, $1) → ($0, $1)", 0, 1, cell::relu, false},
    {s::ffn_out, "ffn_out", affine, 0, 2, cell::affine, false},
    {s::residual2, "residual2", sum, 0, 1, cell::sum, false},
    {s::norm2, "norm2", "norm($0, $1) → ($0, $1)", 0, 1, cell::norm, false},
    {s::x_t, "x_t", input, 0, 1, cell::none, false},
    {s::k_new, "k_new", product, 0, 2, cell::dot, false},
    {s::v_new, "v_new", product, 0, 2, cell::dot, false},
    {s::k_cache, "k_cache", append, 3, 1, cell::none, false},
    {s::v_cache, "v_cache", append, 3, 1, cell::none, false},
    {s::stacked, "stacked", "$0 × ($1, $2) → ($3, $2)", 3, 2, cell::none, false},
    {s::causal_reference, "causal_reference", input, 0, 1, cell::none, false},
    {s::tile_scores, "tile_scores", "($0, $1) @ ($1, $2) ÷ $s1 → ($0, $2)", 0, 2,
     cell::scaled_dot_rows, false},
    {s::tile_max, "tile_max", "max(m, rowmax($0, $1)) → ($0, $2)", 0, 2, cell::running_max, false},
    {s::tile_sum, "tile_sum", "α·l + rowsum($0, $1) → ($0, $2)", 0, 2, cell::running_sum, false},
    {s::tile_out, "tile_out", "α·O + ($0, $1) @ ($1, $2) → ($0, $2)", 0, 2, cell::running_out,
     false},
    {s::block_out, "block_out", "($0, $1) ÷ l → ($0, $1)", 0, 1, cell::divide_rows, false},
    {s::reference, "reference", input, 0, 1, cell::none, false},
    {s::pruned, "pruned", "($0, $1) ⊙ gate → ($0, $1)", 0, 1, cell::gate, false},
};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < std::size(table); ++i)
        if (static_cast<std::size_t>(table[i].id) != i)
            return false;
    return true;
}
static_assert(in_enum_order(), "the stage table must list the stages in enum order");
static_assert(std::size(table) == static_cast<std::size_t>(s::pruned) + 1, "one entry per stage");

} // namespace

const stage_entry &entry(stage_id id) {
    return table[static_cast<std::size_t>(id)];
}

std::optional<stage_id> stage_named(const std::string &name) {
    for (const stage_entry &e : table)
        if (name == e.name)
            return e.id;
    return std::nullopt;
}

std::string stage_names() {
    std::string out;
    for (const stage_entry &e : table)
        out += (out.empty() ? "" : ", ") + std::string(e.name);
    return out;
}

} // namespace attention
