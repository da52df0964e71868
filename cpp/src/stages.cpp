#include "attention/stages.hpp"

#include <iterator>
#include <sstream>

namespace attention {

namespace {

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < std::size(stage_table); ++i)
        if (static_cast<std::size_t>(stage_table[i].id) != i)
            return false;
    return true;
}
static_assert(in_enum_order(), "the stage table must list the stages in enum order");
static_assert(std::size(stage_table) == static_cast<std::size_t>(stage_id::count),
              "one entry per stage");

std::vector<std::string> words(const char *text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

// Whether `name` is one of the alternatives a|b|c.
bool one_of(const std::string &alternatives, const std::string &name) {
    std::istringstream in(alternatives);
    for (std::string a; std::getline(in, a, '|');)
        if (a == name)
            return true;
    return false;
}

} // namespace

std::vector<operand_shape> shapes_of(const stage_entry &e) {
    std::vector<operand_shape> out;
    for (const std::string &token : words(e.shapes)) {
        const bool many = token.size() == 4 && token[1] == ':'; // "m:ab"
        const char *ab = token.c_str() + (many ? 2 : 0);
        out.push_back({many ? std::size_t(token[0] - '0') : no_count, std::size_t(ab[0] - '0'),
                       std::size_t(ab[1] - '0')});
    }
    return out;
}

std::size_t stage_values(stage_id id, const std::vector<std::size_t> &dims) {
    const stage_entry &e = entry(id);
    std::size_t n = dims.at(e.rows) * dims.at(e.cols) + (e.row_totals ? dims.at(e.rows) : 0);
    for (const operand_shape &s : shapes_of(e))
        n += (s.count == no_count ? 1 : dims.at(s.count)) * dims.at(s.rows) * dims.at(s.cols);
    return n;
}

const stage_entry &entry(stage_id id) {
    return stage_table[static_cast<std::size_t>(id)];
}

std::optional<stage_id> stage_named(const std::string &name) {
    for (const stage_entry &e : stage_table)
        if (name == e.name)
            return e.id;
    return std::nullopt;
}

std::string stage_names() {
    std::string out;
    for (const stage_entry &e : stage_table)
        out += (out.empty() ? "" : ", ") + std::string(e.name);
    return out;
}

std::string operand_mismatch(const stage_entry &e, const std::vector<std::string> &names,
                             std::vector<std::size_t> *declared_at) {
    std::size_t at = 0, token = 0;
    for (const std::string &declared : words(e.operands)) {
        const bool each = declared.back() == '*', maybe = declared.back() == '?';
        const std::string want = each || maybe ? declared.substr(0, declared.size() - 1) : declared;
        const std::size_t first = at;
        while (at < names.size() && one_of(want, names[at]) && (each || at == first)) {
            if (declared_at)
                declared_at->push_back(token);
            ++at;
        }
        ++token;
        if (!each && !maybe && at == first)
            return "operand " + std::to_string(at) + " is " +
                   (at < names.size() ? "\"" + names[at] + "\"" : "missing") + ", declared " + want;
    }
    if (at < names.size())
        return "operand " + std::to_string(at) + " \"" + names[at] + "\" is not declared";
    return "";
}

} // namespace attention
