#include "fuzz_inputs.hpp"

#include <cmath>
#include <string>

#include "attention/presets.hpp"
#include "fuzz_values.hpp"

namespace fuzz {

using namespace attention;

namespace {

std::vector<double> numbers(byte_reader &in, std::size_t n) {
    std::vector<double> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(in.number());
    return out;
}

// Designed tokens: 0 … 12 words, or (tag ≥ 240) 120 … 135 around the limit of 128. Once the
// input runs out the words repeat w0 … w6, so a short input can still give many valid tokens.
std::vector<std::string> words(byte_reader &in) {
    const std::uint8_t tag = in.byte();
    const std::size_t n = tag < 240 ? tag % 13 : 120 + tag % 16;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(in.exhausted() ? "w" + std::to_string(i % 7) : in.word());
    return out;
}

generated_spec read_generated(byte_reader &in, problem_kind kind) {
    generated_spec s;
    s.kind = kind;
    s.seed = in.number();
    s.skip = in.number();
    s.seq_len = in.number();
    s.kv_len = in.number();
    s.d_model = in.number();
    s.num_heads = in.number();
    s.num_kv_heads = in.maybe();
    s.d_k = in.maybe();
    s.d_v = in.maybe();
    s.d_ff = in.maybe();
    s.valid_keys = in.maybe();
    s.block_rows = in.number();
    s.block_cols = in.number();
    const std::uint8_t flags = in.byte();
    s.causal = flags & 1;
    s.output_projection = !(flags & 2);
    s.scale_scores = !(flags & 4);
    if (flags & 8)
        s.weight_scale = in.number();
    s.pruned_heads = numbers(in, in.byte() % 6);
    if (kind == problem_kind::designed)
        s.tokens = words(in);
    return s;
}

// A matrix of about r × c entries: a shape byte mostly keeps r × c, else adds or drops a row
// or a column, makes the last row ragged, or asks for 1025 rows (past every row limit).
row_list read_matrix(byte_reader &in, std::size_t r, std::size_t c) {
    const std::uint8_t shape = in.byte() % 32;
    r = shape == 27 ? r + 1 : shape == 29 && r > 0 ? r - 1 : shape == 26 ? 1025 : r;
    c = shape == 28 ? c + 1 : shape == 30 && c > 0 ? c - 1 : c;
    row_list m(r, std::vector<double>(c));
    for (std::vector<double> &row : m)
        for (double &v : row)
            v = in.entry();
    if (shape == 31 && !m.empty()) // the last row one value longer or shorter
        m.back().resize(in.byte() % 2 || c == 0 ? c + 1 : c - 1, 0.5);
    return m;
}

std::vector<row_list> read_heads(byte_reader &in, std::size_t n, std::size_t r, std::size_t c) {
    std::vector<row_list> out;
    for (std::size_t h = 0; h < n; ++h)
        out.push_back(read_matrix(in, r, c));
    return out;
}

explicit_spec read_explicit(byte_reader &in, bool cross) {
    explicit_spec s;
    s.kind = cross ? problem_kind::cross : problem_kind::self;
    const std::size_t t = in.byte() % 6, t_kv = in.byte() % 6, d = in.byte() % 6;
    const std::size_t h = in.byte() % 5, h_kv = in.byte() % 5, d_k = in.byte() % 5,
                      d_v = in.byte() % 5;
    const std::uint8_t flags = in.byte();
    s.causal = flags & 1;
    s.scale_scores = !(flags & 2);
    s.x = read_matrix(in, t, d);
    if (cross)
        s.x_kv = read_matrix(in, t_kv, d);
    s.w_q = read_heads(in, h, d, d_k);
    s.w_k = read_heads(in, h_kv, d, d_k);
    s.w_v = read_heads(in, h_kv, d, d_v);
    if (flags & 4)
        s.w_o = read_matrix(in, h * d_v, d);
    if (flags & 8)
        s.valid_keys = in.number();
    s.pruned_heads = numbers(in, in.byte() % 4);
    return s;
}

// One field of the preset's spec overwritten (or a switch flipped, a head pruned, a token added).
void overwrite_one(byte_reader &in, generated_spec &s) {
    switch (in.byte() % 16) {
    case 0:
        s.seed = in.number();
        break;
    case 1:
        s.skip = in.number();
        break;
    case 2:
        s.seq_len = in.number();
        break;
    case 3:
        s.kv_len = in.number();
        break;
    case 4:
        s.d_model = in.number();
        break;
    case 5:
        s.num_heads = in.number();
        break;
    case 6:
        s.num_kv_heads = in.maybe();
        break;
    case 7:
        s.d_k = in.maybe();
        break;
    case 8:
        s.d_v = in.maybe();
        break;
    case 9:
        s.block_rows = in.number();
        break;
    case 10:
        s.block_cols = in.number();
        break;
    case 11:
        s.weight_scale = in.number();
        break;
    case 12:
        s.causal = !s.causal;
        break;
    case 13:
        s.output_projection = !s.output_projection;
        break;
    case 14:
        s.pruned_heads.push_back(in.number());
        break;
    default:
        s.tokens.push_back(in.word());
        break;
    }
}

generated_spec read_preset(byte_reader &in) {
    const std::vector<preset_info> &all = presets();
    const std::size_t i = in.byte() % (all.size() + 1);
    generated_spec s = i < all.size() ? preset(all[i].id) : preset(in.word());
    overwrite_one(in, s);
    return s;
}

} // namespace

any_spec read_spec(byte_reader &in) {
    const std::uint8_t first = in.byte();
    if (is_value_mode(first))
        return read_value_spec(in);
    const auto m = mode(first % mode_count);
    switch (m) {
    case mode::explicit_self:
    case mode::explicit_cross:
        return read_explicit(in, m == mode::explicit_cross);
    case mode::preset:
        return read_preset(in);
    default:
        return read_generated(in, problem_kind(m)); // the first six modes are the kinds
    }
}

kv_cache_query read_kv_query(byte_reader &in) {
    kv_cache_query q;
    q.seq_len = in.number();
    q.d_head = in.number();
    q.num_kv_heads = in.number();
    q.num_layers = in.number();
    q.bytes_per_value = in.number();
    q.batch = in.number();
    return q;
}

namespace {

// v when validation could accept it as a size (a whole number in [1, hi]), else 0: then the
// spec is refused before anything is drawn.
double size_of(double v, double hi) {
    return std::isfinite(v) && v == std::floor(v) && v >= 1 && v <= hi ? v : 0;
}

} // namespace

double draws_if_valid(const generated_spec &s) {
    if (s.kind == problem_kind::designed)
        return 0;
    const bool cross = s.kind == problem_kind::cross;
    const double t = size_of(s.seq_len, limits::max_seq_len);
    const double d = size_of(s.d_model, limits::max_d_model);
    const double h = size_of(s.num_heads, limits::max_heads);
    const double t_kv = cross ? size_of(s.kv_len, limits::max_seq_len) : 0;
    if (t == 0 || d == 0 || h == 0 || (cross && t_kv == 0))
        return 0;
    const double dk = s.d_k ? size_of(*s.d_k, limits::max_head_dim) : std::floor(d / h);
    const double dv = s.d_v ? size_of(*s.d_v, limits::max_head_dim) : std::floor(d / h);
    const double h_kv = s.num_kv_heads ? size_of(*s.num_kv_heads, h) : h;
    const double dff = s.d_ff ? size_of(*s.d_ff, limits::max_d_ff) : 4 * d;
    if (dk == 0 || dv == 0 || h_kv == 0)
        return 0;
    double draws = (t + t_kv) * d + h * d * (dk + dv) + h_kv * d * (dk + dv);
    if (s.kind == problem_kind::encoder_layer)
        draws += 2 * d * dff + dff + d;
    return draws + size_of(s.skip, limits::max_skip);
}

} // namespace fuzz
