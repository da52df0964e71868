#include "attention/stages.hpp"

#include <iterator>

namespace attention {

namespace {

using s = stage_id;
using eq = shape_rule;
using cell = cell_rule;

// In enum order: entry(id) indexes it directly (checked below).
constexpr stage_entry table[] = {
    {s::x, "x", eq::input, cell::none, false},
    {s::x_q, "x_q", eq::input, cell::none, false},
    {s::x_kv, "x_kv", eq::input, cell::none, false},
    {s::q, "q", eq::product, cell::dot, false},
    {s::k, "k", eq::product, cell::dot, false},
    {s::v, "v", eq::product, cell::dot, false},
    {s::scores, "scores", eq::product, cell::dot_rows, false},
    {s::scaled, "scaled", eq::scale, cell::scaled_dot, false},
    {s::masked, "masked", eq::mask, cell::mask, false},
    {s::weights, "weights", eq::softmax, cell::softmax, true},
    {s::head, "head", eq::product, cell::dot, false},
    {s::concat, "concat", eq::concat, cell::copy_column, false},
    {s::output, "output", eq::product, cell::dot, false},
    {s::residual1, "residual1", eq::add, cell::sum, false},
    {s::norm1, "norm1", eq::norm, cell::norm, false},
    {s::ffn_pre, "ffn_pre", eq::affine, cell::affine, false},
    {s::ffn_hidden, "ffn_hidden", eq::relu, cell::relu, false},
    {s::ffn_out, "ffn_out", eq::affine, cell::affine, false},
    {s::residual2, "residual2", eq::add, cell::sum, false},
    {s::norm2, "norm2", eq::norm, cell::norm, false},
};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < std::size(table); ++i)
        if (static_cast<std::size_t>(table[i].id) != i)
            return false;
    return true;
}
static_assert(in_enum_order(), "the stage table must list the stages in enum order");
static_assert(std::size(table) == static_cast<std::size_t>(s::norm2) + 1, "one entry per stage");

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
