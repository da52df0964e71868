#include "attention/trace_pack.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace attention {

namespace {

// Places matrices back to back, each exactly once: the buffer has exactly the size this trace
// needs (one sized for the largest possible trace was 2.2× larger, and touching its fresh pages
// cost more than all the copies).
class trace_packer {
  public:
    // Places m (or finds its twin); returns its layout fields: "shape":[R,C],"offset":o.
    std::string place(const matrix &m) {
        const std::size_t offset = offset_of(m);
        return "\"shape\":[" + std::to_string(rows(m)) + "," + std::to_string(cols(m)) +
               "],\"offset\":" + std::to_string(offset);
    }

    std::vector<placed_matrix> placed() && { return std::move(placed_); }
    std::size_t end() const { return end_; }

  private:
    // A matrix's shape and three of its values' bits: twins (the same bits) have equal keys,
    // and other matrices rarely do, so only a handful are compared in full.
    static std::uint64_t key_of(const matrix &m) {
        const auto bits = [&](std::size_t i) {
            std::uint64_t b = 0;
            if (m.size())
                std::memcpy(&b, m.data() + i, sizeof b);
            return b;
        };
        std::uint64_t key = rows(m) * 0x9e3779b97f4a7c15ull ^ cols(m);
        for (std::size_t i : {std::size_t(0), m.size() / 2, m.size() ? m.size() - 1 : 0})
            key = (key ^ bits(i)) * 0x100000001b3ull;
        return key;
    }

    // Whether a and b hold the same n doubles, bit for bit (+0 and −0 differ; NaNs can match).
    // musl's memcmp reads a byte at a time; blocks of 64-bit words OR-ed together vectorise.
    static bool same_bits(const double *a, const double *b, std::size_t n) {
        constexpr std::size_t block = 64;
        for (std::size_t i = 0; i < n; i += block) {
            std::uint64_t differ = 0;
            for (std::size_t j = i; j < std::min(n, i + block); ++j) {
                std::uint64_t x, y;
                std::memcpy(&x, a + j, sizeof x);
                std::memcpy(&y, b + j, sizeof y);
                differ |= x ^ y;
            }
            if (differ)
                return false;
        }
        return true;
    }

    // A matrix met before (the trace shares it: a stage's values as a later operand) has the
    // offset it got then, found by its address; any other is compared with its twins' bits.
    // Both give the offset of the first matrix placed with these bits.
    std::size_t offset_of(const matrix &m) {
        const auto [seen, fresh] = by_address_.try_emplace(&m, 0);
        if (fresh)
            seen->second = offset_by_bits(m);
        return seen->second;
    }

    std::size_t offset_by_bits(const matrix &m) {
        std::vector<std::size_t> &twins = by_key_[key_of(m)];
        for (std::size_t i : twins) {
            const matrix &placed = *placed_[i].values;
            if (placed.shape() == m.shape() && same_bits(placed.data(), m.data(), m.size()))
                return placed_[i].offset;
        }
        twins.push_back(placed_.size());
        placed_.push_back({&m, end_});
        end_ += m.size();
        return placed_.back().offset;
    }

    std::vector<placed_matrix> placed_;
    std::unordered_map<const matrix *, std::size_t> by_address_;         // offsets found
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_key_; // indices in placed_
    std::size_t end_ = 0;
};

std::string head_json(int head) {
    return head == no_head ? "null" : std::to_string(head);
}

// A tile's rows, half-open: {"queryRows":[a,b],"keyRows":[c,d]}, or null.
std::string tile_json(const std::optional<tile_span> &t) {
    if (!t)
        return "null";
    const auto pair = [](std::size_t a, std::size_t b) {
        return "[" + std::to_string(a) + "," + std::to_string(b) + "]";
    };
    return "{\"queryRows\":" + pair(t->query_begin, t->query_end) +
           ",\"keyRows\":" + pair(t->key_begin, t->key_end) + "}";
}

std::string axes_json(const axes &a) {
    return "\"axes\":[" + json_string(a.rows) + "," + json_string(a.cols) + "]";
}

std::string operands_json(const stage &s, trace_packer &packer) {
    std::string out = "[";
    for (std::size_t i = 0; i < s.operands.size(); ++i) {
        const operand &op = s.operands[i];
        out += std::string(i ? "," : "") + "{\"name\":" + json_string(op.name) +
               ",\"head\":" + head_json(op.head) + "," + axes_json(op.ax) + "," +
               packer.place(op.values) + "}";
    }
    return out + "]";
}

// ["causal","padding"]: a stage's terms as a JSON list of strings.
std::string terms_json(const std::vector<std::string> &terms) {
    std::string out = "[";
    for (std::size_t i = 0; i < terms.size(); ++i)
        out += (i ? "," : "") + json_string(terms[i]);
    return out + "]";
}

// One stage's entry, placing its values, totals and operands in that order (separate
// statements: the operands of + are evaluated in no set order, and g++ and clang differ).
std::string stage_json(const stage &s, trace_packer &packer) {
    const std::string values = packer.place(s.values);
    const std::string totals = s.totals.size() ? "{" + packer.place(s.totals) + "}" : "null";
    const std::string operands = operands_json(s, packer);
    return "{\"id\":" + json_string(name_of(s.id)) + ",\"head\":" + head_json(s.head) +
           ",\"kvHead\":" + head_json(s.kv_head) + ",\"step\":" + head_json(s.step) +
           ",\"tile\":" + tile_json(s.tile) + ",\"equation\":" + json_string(s.eq.numeric) +
           ",\"symbolic\":" + json_string(s.eq.symbolic) + "," + axes_json(s.ax) + "," + values +
           ",\"totals\":" + totals + ",\"operands\":" + operands +
           ",\"terms\":" + terms_json(s.terms) + "}";
}

} // namespace

std::string json_string(const std::string &text) {
    std::string out = "\"";
    for (char ch : text) {
        const auto byte = static_cast<unsigned char>(ch);
        if (ch == '"' || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (byte < 0x20) { // JSON allows no raw control characters in a string
            char escape[7];
            std::snprintf(escape, sizeof escape, "\\u%04x", byte);
            out += escape;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

trace_layout layout_of(const trace &t) {
    trace_packer packer;
    trace_layout out;
    out.json = "[";
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        out.json += (i ? "," : "") + stage_json(t.stages[i], packer);
    out.json += "]";
    out.value_count = packer.end();
    out.placed = std::move(packer).placed();
    return out;
}

namespace {

// Reads a layout's parts, each refused as "trace: …" unless it is what layout_of wrote.
class layout_reader {
  public:
    explicit layout_reader(const std::vector<double> &values) : values_(values) {}

    stage stage_of(const value &v) {
        stage s;
        const std::optional<stage_id> id = stage_named(text(field(v, "id")));
        if (!id)
            bad("a stage id");
        s.id = *id;
        s.head = index(field(v, "head"));
        s.kv_head = index(field(v, "kvHead"));
        s.step = index(field(v, "step"));
        s.tile = tile(field(v, "tile"));
        s.values = placed(v);
        if (const auto *totals = std::get_if<value_record>(&field(v, "totals").v))
            s.totals = placed(value(*totals));
        for (const value &o : list(field(v, "operands")))
            s.operands.push_back({text(field(o, "name")), index(field(o, "head")), placed(o), {}});
        return s;
    }

  private:
    [[noreturn]] static void bad(const std::string &what) {
        throw std::invalid_argument("trace: " + what + " is not as run() wrote it");
    }
    static const value &field(const value &v, const std::string &key) {
        if (const auto *r = std::get_if<value_record>(&v.v))
            for (const auto &[name, item] : *r)
                if (name == key)
                    return item;
        bad("\"" + key + "\"");
    }
    static const std::string &text(const value &v) {
        if (!std::holds_alternative<std::string>(v.v))
            bad("a name");
        return std::get<std::string>(v.v);
    }
    static double number(const value &v) {
        if (!std::holds_alternative<double>(v.v))
            bad("a number");
        return std::get<double>(v.v);
    }
    static std::vector<double> numbers(const value &v) {
        if (const auto *n = std::get_if<number_array>(&v.v))
            return n->items;
        if (std::holds_alternative<value_list>(v.v) && std::get<value_list>(v.v).empty())
            return {};
        bad("a list of numbers");
    }
    static const value_list &list(const value &v) {
        static const value_list none;
        if (const auto *l = std::get_if<value_list>(&v.v))
            return *l;
        return std::holds_alternative<number_array>(v.v) ? none : (bad("a list"), none);
    }
    static int index(const value &v) { // a head or a step; null for none
        return std::holds_alternative<std::nullptr_t>(v.v) ? no_head : int(number(v));
    }
    static std::optional<tile_span> tile(const value &v) {
        if (std::holds_alternative<std::nullptr_t>(v.v))
            return std::nullopt;
        const std::vector<double> q = numbers(field(v, "queryRows")),
                                  k = numbers(field(v, "keyRows"));
        if (q.size() != 2 || k.size() != 2)
            bad("a tile");
        return tile_span{std::size_t(q[0]), std::size_t(q[1]), std::size_t(k[0]),
                         std::size_t(k[1])};
    }
    // The matrix at v's offset with v's shape, shared with every other part at that offset.
    shared_matrix placed(const value &v) {
        const std::vector<double> shape = numbers(field(v, "shape"));
        const double offset = number(field(v, "offset"));
        if (shape.size() != 2 || offset < 0 ||
            offset + shape[0] * shape[1] > double(values_.size()))
            bad("a matrix's place");
        const auto [at, fresh] = by_offset_.try_emplace(std::size_t(offset));
        if (fresh || rows(*at->second) != shape[0] || cols(*at->second) != shape[1]) {
            matrix m({std::size_t(shape[0]), std::size_t(shape[1])});
            std::copy_n(values_.begin() + std::ptrdiff_t(offset), m.size(), m.begin());
            at->second = std::move(m);
        }
        return at->second;
    }

    const std::vector<double> &values_;
    std::unordered_map<std::size_t, shared_matrix> by_offset_;
};

} // namespace

trace trace_of(const value &layout, const std::vector<double> &values, const attention_config &c) {
    const auto *stages = std::get_if<value_list>(&layout.v);
    if (!stages)
        throw std::invalid_argument("trace: its layout is not as run() wrote it");
    trace t;
    t.config = c;
    layout_reader read(values);
    for (const value &s : *stages)
        t.stages.push_back(read.stage_of(s));
    return t;
}

std::vector<double> packed_values(const trace_layout &layout) {
    std::vector<double> out(layout.value_count);
    for (const placed_matrix &p : layout.placed)
        std::copy(p.values->data(), p.values->data() + p.values->size(), out.begin() + p.offset);
    return out;
}

} // namespace attention
