#include "attention/spec.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/budget.hpp"
#include "attention/designed.hpp"
#include "attention/field_ranges.hpp"
#include "attention/rng.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

// MLA's weights: W_DKV, W_KR, and per head W_UK, W_UV, W_Q, W_QR. D = d_model, DC = d_latent,
// DR = d_rope.
std::size_t latent_weights(const attention_config &c) {
    const std::size_t d = c.d_model, dc = c.d_latent, dr = c.d_rope;
    return d * (dc + dr) + c.num_heads * (dc * (c.d_k + c.d_v) + d * (c.d_k + dr));
}

void check_weight_budget(const attention_config &c) {
    std::size_t values = c.kind == problem_kind::mla
                             ? latent_weights(c)
                             : c.num_heads * c.d_model * c.d_k + kv_parameter_count(c, c.num_kv_heads);
    if (c.output_projection)
        values += c.num_heads * c.d_v * c.d_model;
    if (c.kind == problem_kind::encoder_layer)
        values += 2 * c.d_model * c.d_ff + c.d_ff + c.d_model; // W1, W2, b1, b2
    if (values > limits::max_weight_values)
        reject("weights", std::to_string(values) +
                              " values in W_Q, W_K, W_V, W_O (and W1, W2), above the limit " +
                              std::to_string(limits::max_weight_values) +
                              "; use fewer heads or smaller sizes");
}

// d_k and d_v: as given, else d_model / heads, which then must divide evenly.
void head_sizes(const generated_spec &s, attention_config &c) {
    if ((!s.d_k || !s.d_v) && c.d_model % c.num_heads != 0)
        reject("numHeads", std::to_string(c.num_heads) + " does not divide dModel " +
                               std::to_string(c.d_model) +
                               "; give dK and dV to choose the head sizes yourself");
    const double per_head = double(c.d_model / c.num_heads);
    c.d_k = in_range("dK", s.d_k.value_or(per_head));
    c.d_v = in_range("dV", s.d_v.value_or(per_head));
}

void kv_heads(std::optional<double> given, attention_config &c) {
    c.num_kv_heads =
        whole_number("numKvHeads", given.value_or(double(c.num_heads)), 1, c.num_heads);
    if (c.num_heads % c.num_kv_heads != 0)
        reject("numKvHeads", std::to_string(c.num_kv_heads) + " does not divide numHeads " +
                                 std::to_string(c.num_heads) +
                                 " (each K/V head serves a whole group of query heads)");
}

// The scale of drawn weights: a finite number in (0, 10].
double checked_scale(double v) {
    const field_range &r = range_of("weightScale");
    if (!std::isfinite(v) || v <= r.min || v > r.max)
        reject("weightScale", js_number(v) + " is out of range (" + js_number(r.min) + ", " +
                                  js_number(r.max) + "]; the seed-42 examples use 0.1");
    return v;
}

// The heads to prune: whole numbers in [0, H − 1], each once, and a W_O to prune before.
std::vector<std::size_t> checked_pruned(const std::vector<double> &given,
                                        const attention_config &c) {
    if (!given.empty() && c.kind == problem_kind::kv_cache)
        reject("prunedHeads", "is not available when decoding with a KV cache; prune in the "
                              "self-attention chapters");
    if (!given.empty() && !c.output_projection)
        reject("prunedHeads", "needs the output projection W_O: without it no head is mixed into "
                              "an output that pruning could change");
    std::vector<std::size_t> heads;
    for (double h : given) {
        const std::size_t head = whole_number("prunedHeads", h, 0, c.num_heads - 1);
        if (std::find(heads.begin(), heads.end(), head) != heads.end())
            reject("prunedHeads", "head " + std::to_string(head) + " is listed twice");
        heads.push_back(head);
    }
    return heads;
}

// Kind designed: the sizes its tokens give (designed.hpp). T tokens, V distinct words.
attention_config designed_config(const generated_spec &s) {
    if (s.tokens.empty() || s.tokens.size() > limits::max_designed_tokens)
        reject("tokens", std::to_string(s.tokens.size()) + " tokens; give between 1 and " +
                             std::to_string(limits::max_designed_tokens) + " words");
    for (std::size_t i = 0; i < s.tokens.size(); ++i)
        if (s.tokens[i].empty() || s.tokens[i].size() > 160) // 40 characters of UTF-8
            reject("tokens[" + std::to_string(i) + "]", "must be a word of 1 to 160 bytes");
    const attention_params p = designed_params(s.tokens);
    attention_config c;
    c.kind = problem_kind::designed;
    c.seq_len = c.kv_len = s.tokens.size();
    c.d_model = cols(p.x);
    c.num_heads = c.num_kv_heads = p.w_q.size();
    c.d_k = cols(p.w_q[0]);
    c.d_v = cols(p.w_v[0]);
    c.causal = s.causal;
    c.output_projection = true;
    c.pruned_heads = checked_pruned(s.pruned_heads, c);
    return c;
}

// The RoPE part's width d_r (dRope, or W_KR's columns): even, since RoPE turns pairs of columns.
std::size_t even_rope(std::size_t d_rope, const char *field) {
    const std::string given = std::string(field) == "dRope" ? std::to_string(d_rope)
                                                            : std::to_string(d_rope) + " columns (d_r)";
    if (d_rope % 2)
        reject(field, given + " is odd: RoPE turns pairs of columns; give an even number (DeepSeek-V2 "
                              "uses 64 beside d_h = 128)" + (std::string(field) == "dRope" ? ", or 0" : ""));
    return d_rope;
}

// MLA's latent and RoPE widths: dLatent required, dRope even (0 unless given).
void latent_sizes(const generated_spec &s, attention_config &c) {
    if (!s.d_latent)
        reject("dLatent", "is missing; give the width of the latent each token caches (d_c; "
                          "DeepSeek-V2 uses 512 beside 128 heads of 128)");
    c.d_latent = in_range("dLatent", *s.d_latent);
    c.d_rope = even_rope(in_range("dRope", s.d_rope.value_or(0)), "dRope");
    if (c.d_rope) // every one of its columns turns, from position 0; a spec's rope sets the rest
        c.rope = rope_settings{10000, false, 0, c.d_rope};
}

attention_config generated_config(const generated_spec &s) {
    if (s.kind == problem_kind::designed)
        return designed_config(s);
    attention_config c;
    c.kind = s.kind;
    const bool cross = s.kind == problem_kind::cross;
    c.seq_len = in_range(cross ? "queryLen" : "seqLen", s.seq_len);
    c.kv_len = cross ? in_range("keyLen", s.kv_len) : c.seq_len;
    c.d_model = in_range("dModel", s.d_model);
    c.num_heads = in_range("numHeads", s.num_heads);
    head_sizes(s, c);
    kv_heads(s.num_kv_heads, c);
    if (s.kind == problem_kind::encoder_layer)
        c.d_ff = in_range("dFF", s.d_ff.value_or(4.0 * double(c.d_model)));
    if (s.kind == problem_kind::mla)
        latent_sizes(s, c);
    const bool self = s.kind == problem_kind::self || s.kind == problem_kind::backward;
    if (s.valid_keys && !cross && !self) // padded sequences' keys
        reject("validKeys", "is for cross- and self-attention: their keys may be padding");
    if (s.valid_keys)
        c.valid_keys = whole_number("validKeys", *s.valid_keys, 1, c.kv_len);
    if (s.kind == problem_kind::flash && c.num_heads != 1)
        reject("numHeads", "FlashAttention here runs one head; leave numHeads at 1");
    if (s.kind == problem_kind::flash) {
        c.block_rows = whole_number("blockRows", s.block_rows, 1, c.seq_len);
        c.block_cols = whole_number("blockCols", s.block_cols, 1, c.seq_len);
    }
    c.causal = s.kind == problem_kind::kv_cache || s.causal; // decoding is causal attention
    c.output_projection = s.kind == problem_kind::encoder_layer ||
                          (s.kind != problem_kind::flash && s.output_projection);
    c.scale_scores = s.scale_scores;
    c.weight_scale = checked_scale(s.weight_scale);
    c.pruned_heads = checked_pruned(s.pruned_heads, c);
    check_weight_budget(c);
    return c;
}

// The matrices of one kind (W_Q, W_K, W_V; MLA's W_UK, W_UV, W_QR), each checked against the
// shape its head needs: `rows` rows (`rows_why` says what fixes them), and `*width` columns, which
// `like` fixes (the first matrix's when *width is 0).
std::vector<matrix> checked_heads(const std::string &name, const std::vector<row_list> &given,
                                  std::size_t rows, const std::string &rows_why, std::size_t *width,
                                  const std::string &like) {
    std::vector<matrix> out;
    for (std::size_t h = 0; h < given.size(); ++h) {
        const std::string field = name + "[" + std::to_string(h) + "]";
        matrix w = checked_matrix(field, given[h], limits::max_d_model, limits::max_head_dim);
        if (*width == 0)
            *width = cols(w);
        require_shape(field, w, rows, *width,
                      "(" + rows_why + ", " + std::to_string(*width) + " columns like " + like + ")");
        out.push_back(std::move(w));
    }
    return out;
}

// `d_model = D rows like X's columns`: what fixes the rows of W_Q, W_K and W_V.
std::string rows_like_x(std::size_t d_model) {
    return "d_model = " + std::to_string(d_model) + " rows like X's columns";
}

// W_K and W_V: one pair per K/V head, a number of them that divides the query heads.
void checked_kv(const explicit_spec &spec, problem &p) {
    attention_config &c = p.config;
    const std::size_t n = spec.w_k.size();
    if (n == 0 || n > c.num_heads || c.num_heads % n != 0)
        reject("W_K", std::to_string(n) +
                          " matrices; give one per K/V head, a number that divides W_Q's " +
                          std::to_string(c.num_heads) +
                          " (as many as W_Q for multi-head, 1 for multi-query)");
    if (spec.w_v.size() != n)
        reject("W_V", std::to_string(spec.w_v.size()) + " matrices, but W_K has " +
                          std::to_string(n) + " (one W_K and one W_V per K/V head)");
    c.num_kv_heads = n;
    p.params.w_k = checked_heads("W_K", spec.w_k, c.d_model, rows_like_x(c.d_model), &c.d_k, "W_Q[0]");
    p.params.w_v = checked_heads("W_V", spec.w_v, c.d_model, rows_like_x(c.d_model), &c.d_v, "W_V[0]");
}

// Kind backward's dO, shaped like the output: as given, else drawn after every other draw.
matrix d_output_of(const std::optional<row_list> &given, const attention_config &c,
                   numpy_random &rng) {
    const std::size_t width = c.output_projection ? c.d_model : c.num_heads * c.d_v;
    if (!given)
        return rng.randn(c.seq_len, width); // (T, D) or (T, H·DV)
    matrix d_o = checked_matrix("dOutput", *given, limits::max_seq_len,
                                limits::max_heads * limits::max_head_dim);
    require_shape("dOutput", d_o, c.seq_len, width,
                  "(T = " + std::to_string(c.seq_len) + " rows, " + std::to_string(width) +
                      (c.output_projection ? " columns like the output X · … · W_O (d_model))"
                                           : " columns like the concat (h·d_v), without W_O)"));
    return d_o;
}

// MLA's weights after X, in the order a caller reads them: W_DKV, every W_UK, every W_UV, every
// W_Q, W_KR, every W_QR (with dRope), W_O.
void draw_latent(numpy_random &rng, problem &p) {
    const attention_config &c = p.config;
    const double scale = c.weight_scale;
    latent_params &w = p.params.latent;
    w.w_dkv = rng.randn(c.d_model, c.d_latent, scale); // (D, DC)
    for (std::size_t i = 0; i < c.num_heads; ++i)
        w.w_uk.push_back(rng.randn(c.d_latent, c.d_k, scale)); // (DC, DK)
    for (std::size_t i = 0; i < c.num_heads; ++i)
        w.w_uv.push_back(rng.randn(c.d_latent, c.d_v, scale)); // (DC, DV)
    for (std::size_t i = 0; i < c.num_heads; ++i)
        p.params.w_q.push_back(rng.randn(c.d_model, c.d_k, scale)); // (D, DK)
    if (c.d_rope) {
        w.w_kr = rng.randn(c.d_model, c.d_rope, scale); // (D, DR)
        for (std::size_t i = 0; i < c.num_heads; ++i)
            w.w_qr.push_back(rng.randn(c.d_model, c.d_rope, scale)); // (D, DR)
    }
    p.params.w_o = rng.randn(c.num_heads * c.d_v, c.d_model, scale); // (H·DV, D)
}

void draw_ffn(numpy_random &rng, problem &p) {
    const attention_config &c = p.config;
    const double scale = c.weight_scale;
    p.ffn.w1 = rng.randn(c.d_model, c.d_ff, scale); // (D, DFF)
    p.ffn.w2 = rng.randn(c.d_ff, c.d_model, scale); // (DFF, D)
    p.ffn.b1 = rng.randn(1, c.d_ff, scale);         // (1, DFF)
    p.ffn.b2 = rng.randn(1, c.d_model, scale);      // (1, D)
}

} // namespace

problem make_problem(const generated_spec &spec, bool traced) {
    problem p;
    p.config = generated_config(spec);
    const attention_config &c = p.config;
    if (c.kind == problem_kind::designed) {
        p.params = designed_params(spec.tokens);
        if (traced)
            check_trace_budget(c);
        return p;
    }
    p.seed = double(in_range("seed", spec.seed));
    numpy_random rng(static_cast<std::uint32_t>(p.seed));
    const std::size_t skip = in_range("skip", spec.skip);
    if (traced)
        check_trace_budget(c); // before drawing: a refusal should be instant
    for (std::size_t i = 0; i < skip; ++i)
        rng.gauss();
    p.params.x = rng.randn(c.seq_len, c.d_model); // (T, D)
    if (c.kind == problem_kind::mla) {
        draw_latent(rng, p);
        return p;
    }
    if (c.kind == problem_kind::cross)
        p.params.x_kv = rng.randn(c.kv_len, c.d_model); // (T_kv, D)
    const double scale = c.weight_scale;
    for (std::size_t i = 0; i < c.num_heads; ++i)
        p.params.w_q.push_back(rng.randn(c.d_model, c.d_k, scale));
    for (std::size_t g = 0; g < c.num_kv_heads; ++g)
        p.params.w_k.push_back(rng.randn(c.d_model, c.d_k, scale));
    for (std::size_t g = 0; g < c.num_kv_heads; ++g)
        p.params.w_v.push_back(rng.randn(c.d_model, c.d_v, scale));
    if (c.output_projection)
        p.params.w_o = rng.randn(c.num_heads * c.d_v, c.d_model, scale);
    if (c.kind == problem_kind::encoder_layer)
        draw_ffn(rng, p);
    if (c.kind == problem_kind::backward)
        p.d_output = d_output_of(spec.d_output, c, rng);
    if (spec.draw_sinks) { // after every other draw, so that every matrix is as without sinks
        const matrix zeta = rng.randn(1, c.num_heads); // (1, H)
        p.config.sinks.assign(zeta.begin(), zeta.end());
    }
    return p;
}

// `name`'s matrices, exactly one per head (H of them), each checked as checked_heads does.
std::vector<matrix> head_matrices(const std::string &name, const std::vector<row_list> &given,
                                  std::size_t heads, std::size_t rows, const std::string &why,
                                  std::size_t *cols, const std::string &like) {
    if (given.size() != heads)
        reject(name, std::to_string(given.size()) + " matrices for " + std::to_string(heads) +
                         " heads (W_Q's count); give one per head");
    return checked_heads(name, given, rows, why, cols, like);
}

// Longer than 40 lines: kind mla's matrices, each checked against the shapes X, W_DKV and W_Q fix
// (mla.hpp), in the order the fields are listed.
problem make_latent_problem(const explicit_spec &spec) {
    problem p;
    attention_config &c = p.config;
    latent_params &w = p.params.latent;
    c.kind = problem_kind::mla;
    p.params.x = checked_matrix("X", spec.x, limits::max_seq_len, limits::max_d_model);
    c.seq_len = c.kv_len = rows(p.params.x);
    c.d_model = cols(p.params.x);
    const std::string d = std::to_string(c.d_model);
    w.w_dkv = checked_matrix("W_DKV", spec.w_dkv, limits::max_d_model, limits::max_head_dim);
    require_shape("W_DKV", w.w_dkv, c.d_model, cols(w.w_dkv), "(d_model = " + d + " rows like X's columns)");
    c.d_latent = cols(w.w_dkv);
    if (spec.w_q.empty() || spec.w_q.size() > limits::max_heads)
        reject("W_Q", std::to_string(spec.w_q.size()) + " matrices; give one per head, between 1 and " +
                          std::to_string(limits::max_heads));
    c.num_heads = c.num_kv_heads = spec.w_q.size();
    const std::string latent = "d_c = " + std::to_string(c.d_latent) + " rows like W_DKV's columns";
    p.params.w_q = head_matrices("W_Q", spec.w_q, c.num_heads, c.d_model, "d_model = " + d + " rows", &c.d_k,
                                 "W_Q[0]");
    std::size_t d_k = c.d_k; // W_UK's columns are the heads' d_k
    w.w_uk = head_matrices("W_UK", spec.w_uk, c.num_heads, c.d_latent, latent, &d_k, "W_Q's, d_k");
    w.w_uv = head_matrices("W_UV", spec.w_uv, c.num_heads, c.d_latent, latent, &c.d_v, "W_UV[0]");
    if (spec.w_kr.has_value() != !spec.w_qr.empty())
        reject(spec.w_kr ? "W_QR" : "W_KR", "is missing: the decoupled RoPE part needs W_KR (the "
                                           "shared key's) and W_QR (one per head) together");
    if (spec.w_kr) {
        w.w_kr = checked_matrix("W_KR", *spec.w_kr, limits::max_d_model, limits::max_head_dim);
        require_shape("W_KR", w.w_kr, c.d_model, cols(w.w_kr), "(d_model = " + d + " rows)");
        c.d_rope = even_rope(cols(w.w_kr), "W_KR");
        c.rope = rope_settings{10000, false, 0, c.d_rope};
        w.w_qr = head_matrices("W_QR", spec.w_qr, c.num_heads, c.d_model, "d_model = " + d + " rows", &c.d_rope,
                               "W_KR's, d_r");
    }
    p.params.w_o = checked_matrix("W_O", *spec.w_o, limits::max_heads * limits::max_head_dim,
                                  limits::max_d_model);
    require_shape("W_O", p.params.w_o, c.num_heads * c.d_v, c.d_model, "(h·d_v rows, d_model columns)");
    c.causal = spec.causal;
    c.scale_scores = spec.scale_scores;
    c.output_projection = true;
    check_weight_budget(c);
    return p;
}

// Longer than 40 lines: each given matrix checked against the shape the others fix, in the order
// a caller reads the message (X, then W_Q, W_K, W_V per head, then W_O, then dOutput).
problem make_problem(const explicit_spec &spec) {
    if (spec.kind == problem_kind::mla)
        return make_latent_problem(spec);
    problem p;
    attention_config &c = p.config;
    const bool cross = spec.kind == problem_kind::cross;
    c.kind = spec.kind;
    p.params.x =
        checked_matrix(cross ? "X_q" : "X", spec.x, limits::max_seq_len, limits::max_d_model);
    c.seq_len = rows(p.params.x);
    c.d_model = cols(p.params.x);
    c.kv_len = c.seq_len;
    if (cross) {
        p.params.x_kv = checked_matrix("X_kv", spec.x_kv, limits::max_seq_len, limits::max_d_model);
        require_shape("X_kv", p.params.x_kv, rows(p.params.x_kv), c.d_model,
                      "(d_model = " + std::to_string(c.d_model) + " columns like X_q)");
        c.kv_len = rows(p.params.x_kv);
    }
    if (spec.w_q.empty() || spec.w_q.size() > limits::max_heads)
        reject("W_Q", std::to_string(spec.w_q.size()) +
                          " matrices; give one per head, between 1 and " +
                          std::to_string(limits::max_heads));
    c.num_heads = spec.w_q.size();
    p.params.w_q = checked_heads("W_Q", spec.w_q, c.d_model, rows_like_x(c.d_model), &c.d_k, "W_Q[0]");
    checked_kv(spec, p);
    const bool self = spec.kind == problem_kind::self || spec.kind == problem_kind::backward;
    if (spec.valid_keys && !cross && !self)
        reject("validKeys", "is for cross- and self-attention: their keys may be padding");
    if (spec.valid_keys)
        c.valid_keys = whole_number("validKeys", *spec.valid_keys, 1, c.kv_len);
    c.causal = spec.causal;
    c.scale_scores = spec.scale_scores;
    c.output_projection = spec.w_o.has_value();
    c.pruned_heads = checked_pruned(spec.pruned_heads, c);
    if (c.output_projection) {
        p.params.w_o = checked_matrix("W_O", *spec.w_o, limits::max_heads * limits::max_head_dim,
                                      limits::max_d_model);
        require_shape("W_O", p.params.w_o, c.num_heads * c.d_v, c.d_model,
                      "(h·d_v rows, d_model columns)");
    }
    check_weight_budget(c);
    if (c.kind == problem_kind::backward) {
        if (!spec.d_output)
            p.seed = double(in_range("seed", spec.seed));
        numpy_random rng(static_cast<std::uint32_t>(spec.d_output ? 0 : p.seed));
        p.d_output = d_output_of(spec.d_output, c, rng);
    }
    return p;
}

} // namespace attention
