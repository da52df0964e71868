#include "attention/trace.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace attention {

namespace {

// Whether a part { … } of an equation is written: every dim it names is not empty.
bool part_written(const char *p, const std::vector<dim> &dims) {
    for (; *p != '}'; ++p)
        if (*p == '$' && dims.at(std::size_t(p[1] - '0')).size == 0)
            return false;
    return true;
}

// The equation's text with each $i replaced by spell(dims[i]) and $si by the divisor √dims[i]
// (1 without scaling); a part { … } written only when its dims are not empty (MLA's RoPE term).
template <class Spell>
std::string fill(const char *text, const std::vector<dim> &dims, bool scale_scores, Spell spell) {
    std::string out;
    for (const char *p = text; *p; ++p) {
        if (*p == '{' && !part_written(p, dims)) {
            p = std::strchr(p, '}');
        } else if (*p == '{' || *p == '}') {
            continue;
        } else if (*p != '$') {
            out += *p;
        } else if (*++p == 's') {
            const dim &d = dims.at(std::size_t(*++p - '0'));
            out += scale_scores ? "√" + spell(d) : std::string("1");
        } else {
            out += spell(dims.at(std::size_t(*p - '0')));
        }
    }
    return out;
}

// How many dims a stage's pass must give: the largest index its equation or its operands' shapes
// name, plus one.
std::size_t dims_named(const stage_entry &e) {
    std::size_t n = 0;
    for (const char *p = e.equation; *p; ++p)
        if (*p == '$')
            n = std::max(n, std::size_t(p[p[1] == 's' ? 2 : 1] - '0') + 1);
    for (const operand_shape &s : shapes_of(e))
        n = std::max({n, s.rows + 1, s.cols + 1, s.count == no_count ? 0 : s.count + 1});
    return n;
}

matrix row_sums(const matrix &m) {
    matrix out({rows(m), std::size_t(1)});
    for (std::size_t i = 0; i < rows(m); ++i) {
        double total = 0.0;
        for (std::size_t j = 0; j < cols(m); ++j)
            total += m(i, j);
        out(i, 0) = total;
    }
    return out;
}

} // namespace

stage make_stage(const trace &t, stage_id id, stage_at at, const std::vector<dim> &dims,
                 shared_matrix values) {
    const stage_entry &e = entry(id);
    if (dims.size() != dims_named(e) || dims[e.rows].size != rows(values) ||
        dims[e.cols].size != cols(values))
        throw std::logic_error(std::string("stage ") + e.name + ": dims do not match its values");
    const bool scale = t.config.scale_scores;
    const auto number = [](const dim &d) { return std::to_string(d.size); };
    const auto symbol = [](const dim &d) { return d.symbol; };
    const equation eq{fill(e.equation, dims, scale, number), fill(e.equation, dims, scale, symbol)};
    stage s{id,
            at.head,
            at.kv_head,
            at.step,
            at.tile,
            eq,
            std::move(values),
            axes_of(dims[e.rows], dims[e.cols]),
            {},
            {},
            {}};
    if (e.row_totals)
        s.totals = row_sums(s.values);
    return s;
}

void add_term(stage &s, const char *term) {
    std::istringstream declared(entry(s.id).terms);
    for (std::string t; declared >> t;)
        if (t == term) {
            s.terms.emplace_back(term);
            return;
        }
    throw std::logic_error(std::string("stage ") + entry(s.id).name + ": term \"" + term +
                           "\" is not declared in its entry");
}

void check_operands(const stage &s, const std::vector<dim> &dims) {
    std::vector<std::string> names;
    for (const operand &o : s.operands)
        names.push_back(o.name);
    std::vector<std::size_t> declared_at;
    std::string wrong = operand_mismatch(entry(s.id), names, &declared_at);
    const std::vector<operand_shape> shapes = shapes_of(entry(s.id));
    std::vector<std::size_t> counted(shapes.size(), 0);
    for (std::size_t i = 0; wrong.empty() && i < s.operands.size(); ++i) {
        const operand_shape &want = shapes.at(declared_at[i]);
        ++counted[declared_at[i]];
        if (rows(s.operands[i].values) != dims[want.rows].size ||
            cols(s.operands[i].values) != dims[want.cols].size)
            wrong = "operand " + std::to_string(i) + " \"" + names[i] +
                    "\" is not of its declared shape";
    }
    for (std::size_t k = 0; wrong.empty() && k < shapes.size(); ++k)
        if (shapes[k].count != no_count && counted[k] != dims[shapes[k].count].size)
            wrong = "operand list " + std::to_string(k) + " holds " + std::to_string(counted[k]) +
                    ", not its declared count";
    if (!wrong.empty())
        throw std::logic_error(std::string("stage ") + name_of(s.id) + ": " + wrong);
}

std::size_t recorded_value_count(const trace &t) {
    std::size_t n = 0;
    for (const stage &s : t.stages) {
        n += s.values.size() + s.totals.size();
        for (const operand &o : s.operands)
            n += o.values.size();
    }
    return n;
}

} // namespace attention
