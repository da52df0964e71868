// Every stage the engine can record, declared once in this file: its id (what JS sees), its
// shape equation, how explain_cell takes one of its cells apart, and the operands its pass
// records (over 300 lines: the table is the point, one place for every stage). The passes, the
// trace and explain all go through this table; adding a stage is an
// enum value and an entry here, plus one record() call.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace attention {

enum class stage_id {
    x,          // (T, D)       self-attention's tokens
    x_q,        // (T_q, D)     cross-attention's query tokens
    x_kv,       // (T_kv, D)    cross-attention's key/value tokens
    x_pos,      // (T, D)       X + PE, the sinusoidal position encoding added
    c_kv,       // (T, DC)      X · W_DKV: MLA's latent, what each token caches
    k_rope,     // (T, DR)      RoPE(X · W_KR): MLA's key part that carries position, every head's
    q,          // (T, DK)      X · W_Q
    k,          // (T_kv, DK)   X · W_K
    v,          // (T_kv, DV)   X · W_V
    q_norm,     // (T, DK)      Q's rows RMS-normalised, ⊙ λ_Q (QK-norm)
    k_norm,     // (T_kv, DK)   K's rows RMS-normalised, ⊙ λ_K (QK-norm)
    q_rot,      // (T, DK)      Q turned by position (RoPE)
    k_rot,      // (T_kv, DK)   K turned by position (RoPE)
    q_rope,     // (T, DR)      RoPE(X · W_QR): an MLA head's query part that carries position
    q_absorbed, // (T, DC)      Q · W_UKᵀ: an MLA head's query taken down to the latent
    scores,     // (T, T_kv)    Q · Kᵀ (MLA: + q_rope · k_ropeᵀ)
    scaled,     // (T, T_kv)    scores / √DK
    capped,     // (T, T_kv)    κ·tanh(scaled / κ), the logits soft-capped
    biased,     // (T, T_kv)    scaled + B, ALiBi's distance bias
    masked,     // (T, T_kv)    scaled + M
    weights,    // (T, T_kv)    row softmax
    sink,       // (T, 1)       each row's share on the sink (sinks): 1 − the row's weights
    latent_head, // (T, DC)     weights · c_kv: an MLA head's output in the latent
    head,       // (T, DV)      weights · V
    concat,     // (T, H·DV)    heads side by side
    output,     // (T, D)       concat · W_O
    residual1,  // (T, D)       X + attention output
    norm1,      // (T, D)       layer norm
    ffn_pre,    // (T, DFF)     norm1 · W1 + b1
    ffn_hidden, // (T, DFF)     ReLU
    ffn_out,    // (T, D)       hidden · W2 + b2
    residual2,  // (T, D)       norm1 + ffn_out
    norm2,      // (T, D)       layer norm: the layer's output
    // KV-cache decoding, one step t at a time (stage.step = t):
    x_t,              // (1, D)        row t of X
    k_new,            // (1, DK)       x_t · W_K
    v_new,            // (1, DV)       x_t · W_V
    k_cache,          // (t+1, DK)     the cached keys with k_new appended
    v_cache,          // (t+1, DV)     the cached values with v_new appended
    stacked,          // (T, ·)        the steps' (or the query blocks') outputs, stacked
    causal_reference, // (T, ·)        the same sizes as one causal forward pass
    // FlashAttention's tiled forward pass (stage.tile: the tile's query and key rows):
    tile_scores, // (B_r, B_c)   Q_i · K_jᵀ / √DK, −∞ above the diagonal when causal
    tile_max,    // (B_r, 1)     running max μ after the tile (operand m)
    tile_sum,    // (B_r, 1)     running sum Z after the tile (operand l)
    tile_out,    // (B_r, DV)    running output O after the tile, not yet divided by l
    block_out,   // (B_r, DV)    O / l: the query block's output
    reference,   // (T, DV)      ordinary attention, for comparison
    pruned,      // (T, H·DV)    the concat with the pruned heads' columns zeroed
    // The attention-only model (model_pass.hpp); each layer's stages carry stage.step = layer:
    embedded,      // (T, D)       x₀ = W_E[tokens] + W_P
    residual,      // (T, D)       x_{l+1} = x_l + the layer's attention output
    logits,        // (T, V)       x_L · W_U
    probabilities, // (T, V)       row softmax: the next token's distribution
    token_loss,    // (T − 1, 1)   −ln p of each next token
    loss,          // (1, 1)       their mean over the positions counted
    // The backward pass (backward.hpp), in its order: each d_x is ∂loss/∂x.
    d_output,  // (T, D)        dO, given or drawn
    d_w_o,     // (H·DV, D)     concatᵀ · dO
    d_concat,  // (T, H·DV)     dO · W_Oᵀ
    d_head,    // (T, DV)       head i's columns of d_concat
    d_weights, // (T, T)        dH · Vᵀ
    d_scaled,  // (T, T)        A ⊙ (dA − rowsum(dA ⊙ A)), the softmax's backward pass
    d_scores,  // (T, T)        d_scaled ÷ √DK
    d_q,       // (T, DK)       dS · K
    d_q_rot,   // (T, DK)       under RoPE: dS · K_rot, the gradient at q_rot
    d_q_unrot, // (T, DK)       under RoPE: d_q_rot turned back by −φ, the gradient at q
    d_v,       // (T, DV)       Σ over the group of Aᵀ · dH
    d_k,       // (T, DK)       Σ over the group of dSᵀ · Q
    d_k_rot,   // (T, DK)       under RoPE: Σ over the group of dSᵀ · Q_rot
    d_k_unrot, // (T, DK)       under RoPE: d_k_rot turned back by −φ
    d_w_q,     // (D, DK)       Xᵀ · dQ
    d_w_k,     // (D, DK)       Xᵀ · dK
    d_w_v,     // (D, DV)       Xᵀ · dV
    d_x,       // (T, D)        Σ over heads of dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ
    count,     // not a stage: how many there are
};

struct cell_explanation;
struct stage;
struct trace;

// How explain_cell takes cell (i, j) of a stage apart: it fills in the numbers that produce the
// cell, reading the stage's operands by position. Each stage names its rule in the table below;
// the rules are defined beside the math they explain (explain.cpp).
using cell_rule = void (*)(cell_explanation &e, const trace &t, const stage &s, std::size_t i,
                           std::size_t j);

namespace rules {
void none(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t); // drawn
// Σ_p op0[i, p] · op1[p, j]
void dot(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] / √(mean_p op0[i, p]² + ε) · op1[0, j]: the row RMS-normalised, times its gain
void rms_norm(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ_p op0[i, p] · op1[j, p]   (Q · Kᵀ without the transpose)
void dot_rows(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// the scores stage's dot, then ÷ divisor
void scaled_dot(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op1[0, 0] · tanh(op0[i, j] / op1[0, 0]): the logit soft-capped at κ = op1
void soft_cap(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] + op1[i, j], op1 the mask M (0 or −∞)
void mask(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// exp(op0[i, j] − max) / Σ_k exp(op0[i, k] − max), the head's sink ζ in the sum when it has one
void softmax(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// exp(ζ − max) / (exp(ζ − max) + Σ_k exp(op0[i, k] − max)), ζ = op1[0, 0]: the sink's share
void sink_share(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// column j comes from one head's column
void copy_column(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] + op1[i, j] (+ every further operand's)
void sum(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// (op0[i, j] − mean_i) / (std_i + ε)
void norm(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ_p op0[i, p] · op1[p, j] + op2[0, j]
void affine(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// max(0, op0[i, j])
void relu(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ_p op0[i, p] · op1[j, p] ÷ divisor, −∞ where masked
void scaled_dot_rows(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// max(op0[i, 0], max_k op1[i, k])
void running_max(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op1[i, 0] · op0[i, 0] + Σ_k op2[i, k]       (α · l + Σ P)
void running_sum(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op1[i, 0] · op0[i, j] + Σ_p op2[i, p] · op3[p, j]   (α · O + P · V)
void running_out(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] / op1[i, 0]
void divide_rows(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// a pair of columns turned by an angle: x_a·cos φ + x_b·(−sin φ), or x_a·sin φ + x_b·cos φ
// (rope.cpp)
void rotate(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ_p op0[p, i] · op1[p, j]   (Aᵀ · B without the transpose)
void dot_cols(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ over the group's heads g of Σ_p op_g[p, i] · op_{G+g}[p, j]: the first half of the operands
// against the second
void group_dot_cols(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] · (op1[i, j] − Σ_k op1[i, k] · op0[i, k]): A ⊙ (dA − rowsum(dA ⊙ A))
void softmax_backward(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] ÷ divisor
void divide(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// column j is column head · DV + j of op0
void head_column(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// op0[i, j] · op1[0, j], the gate 1 or 0
void gate(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// −ln op0[i, op1[i, 0]]: the probability given the token that came next
void neg_log(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
// Σ_k op1[k, 0]·op0[k, 0] ÷ Σ_k op1[k, 0]: the mean over the rows op1 counts
void mean(cell_explanation &, const trace &, const stage &, std::size_t, std::size_t);
} // namespace rules

struct stage_entry {
    stage_id id;
    const char *name; // the id JS and the fixtures use
    // The shape equation, written once for numbers and symbols alike: $0, $1, … stand for the
    // dimensions the stage's pass names, in order; $sN for the divisor √$N (1 without scaling);
    // a part in braces { … } is written only when every dimension it names is not empty.
    const char *equation;
    std::size_t rows, cols; // which of those dimensions are the result's rows and columns
    cell_rule cell;         // how explain_cell takes one of its cells apart
    bool row_totals;        // the trace carries Σ of each row (the weights: each row sums to 1)
    // The operands the pass records, in order, space-separated: a name, names a|b of which
    // one, name* for one per head, or name? for one that may be absent (record() checks them as
    // it checks the dims).
    const char *operands;
    // Each operand's shape, a token per operand: "ab" is ($a, $b); "m:ab" is $m of them, each
    // ($a, $b) (a name* list). record() checks each operand against it; the trace budget counts
    // a stage's values from it (stage_values).
    const char *shapes;
    // The terms the pass may report beside its operands (trace.hpp's stage::terms), space-
    // separated; add_term refuses any other. Most stages report none.
    const char *terms = "";
};

namespace detail {

constexpr const char *input = "($0, $1)";
constexpr const char *product = "($0, $1) @ ($1, $2) → ($0, $2)";
constexpr const char *affine = "($0, $1) @ ($1, $2) + ($2) → ($0, $2)";
constexpr const char *sum = "($0, $1) + ($0, $1) → ($0, $1)";
constexpr const char *product_tn = "($1, $0)ᵀ @ ($1, $2) → ($0, $2)";
constexpr const char *product_nt = "($0, $1) @ ($2, $1)ᵀ → ($0, $2)";
constexpr const char *group_tn = "Σ $3 × ($1, $0)ᵀ @ ($1, $2) → ($0, $2)";
constexpr const char *turn_back = "rotate($0, $1) by −φ → ($0, $1)";
constexpr const char *append = "[($0, $1); ($2, $1)] → ($3, $1)";
using s = stage_id;
namespace cell = rules;

} // namespace detail

// Every stage, in enum order: entry(id) indexes it directly (stages.cpp checks the order).
inline constexpr stage_entry stage_table[] = {
    {detail::s::x, "x", detail::input, 0, 1, detail::cell::none, false, "", ""},
    {detail::s::x_q, "x_q", detail::input, 0, 1, detail::cell::none, false, "", ""},
    {detail::s::x_kv, "x_kv", detail::input, 0, 1, detail::cell::none, false, "", ""},
    {detail::s::x_pos, "x_pos", detail::sum, 0, 1, detail::cell::sum, false, "X PE", "01 01"},
    {detail::s::c_kv, "c_kv", detail::product, 0, 2, detail::cell::dot, false, "X W_DKV", "01 12"},
    {detail::s::k_rope, "k_rope", "rotate(($0, $5) @ ($5, $1)) → ($0, $1)", 0, 1,
     detail::cell::rotate, false, "X·W_KR θ angle cos sin pairs X W_KR", "01 32 02 02 02 24 05 51"},
    {detail::s::q, "q", detail::product, 0, 2, detail::cell::dot, false, "X|X_q|x_t|x_pos W_Q",
     "01 12"},
    {detail::s::k, "k", detail::product, 0, 2, detail::cell::dot, false,
     "X|X_kv|x_pos|c_kv W_K|W_UK", "01 12"},
    {detail::s::v, "v", detail::product, 0, 2, detail::cell::dot, false,
     "X|X_kv|x_pos|c_kv W_V|W_UV", "01 12"},
    {detail::s::q_norm, "q_norm", "rmsnorm($0, $1) ⊙ λ → ($0, $1)", 0, 1, detail::cell::rms_norm,
     false, "Q λ_Q", "01 21"},
    {detail::s::k_norm, "k_norm", "rmsnorm($0, $1) ⊙ λ → ($0, $1)", 0, 1, detail::cell::rms_norm,
     false, "K|k_new λ_K", "01 21"},
    {detail::s::q_rot, "q_rot", "rotate($0, $1) → ($0, $1)", 0, 1, detail::cell::rotate, false,
     "Q|q_norm θ angle cos sin pairs", "01 32 02 02 02 24"},
    {detail::s::k_rot, "k_rot", "rotate($0, $1) → ($0, $1)", 0, 1, detail::cell::rotate, false,
     "K|k_new|k_norm θ angle cos sin pairs", "01 32 02 02 02 24"},
    {detail::s::q_rope, "q_rope", "rotate(($0, $5) @ ($5, $1)) → ($0, $1)", 0, 1,
     detail::cell::rotate, false, "X·W_QR θ angle cos sin pairs X W_QR", "01 32 02 02 02 24 05 51"},
    {detail::s::q_absorbed, "q_absorbed", detail::product_nt, 0, 2, detail::cell::dot_rows, false,
     "Q W_UK", "01 21"},
    // MLA adds the RoPE parts' product (dims $3 = DR, $4 = DC; 0 elsewhere, which drops the
    // bracket) and shows q_absorbed · c_kvᵀ, the same matrix reached through the latent.
    {detail::s::scores, "scores", "($0, $1) @ ($1, $2){ + ($0, $3) @ ($3, $2)} → ($0, $2)", 0, 2,
     detail::cell::dot_rows, false, "Q|q_rot|q_norm K|k_rot|k_norm q_rope? k_rope? q_absorbed? c_kv?",
     "01 21 03 23 04 24", "decoupled-rope"},
    {detail::s::scaled, "scaled", "($0, $1) ÷ $s2 → ($0, $1)", 0, 1, detail::cell::scaled_dot,
     false, "scores", "01", "scale"},
    {detail::s::capped, "capped", "κ·tanh(($0, $1) ÷ κ) → ($0, $1)", 0, 1, detail::cell::soft_cap,
     false, "scaled κ", "01 22"},
    {detail::s::biased, "biased", detail::sum, 0, 1, detail::cell::sum, false, "scaled B", "01 01",
     "one-sided symmetric"},
    {detail::s::masked, "masked", detail::sum, 0, 1, detail::cell::mask, false,
     "scaled|capped|biased M", "01 01", "causal prefix window sink-tokens documents padding"},
    {detail::s::weights, "weights", "softmax($0, $1) → ($0, $1)", 0, 1, detail::cell::softmax, true,
     "masked|biased|capped|scaled", "01"},
    {detail::s::sink, "sink", "sink share($0, $2), ζ → ($0, $1)", 0, 1, detail::cell::sink_share,
     false, "masked|biased|capped|scaled ζ", "02 11"},
    {detail::s::latent_head, "latent_head", detail::product, 0, 2, detail::cell::dot, false,
     "weights c_kv", "01 12"},
    // MLA: latent_head · W_UV (dims T, DC, DV), the same as weights · V.
    {detail::s::head, "head", detail::product, 0, 2, detail::cell::dot, false,
     "weights|latent_head V|W_UV", "01 12"},
    {detail::s::concat, "concat", "$0 × ($1, $2) → ($1, $3)", 1, 3, detail::cell::copy_column,
     false, "head*", "0:12"},
    {detail::s::output, "output", detail::product, 0, 2, detail::cell::dot, false,
     "concat|pruned W_O contribution*", "01 12 3:02"},
    {detail::s::residual1, "residual1", detail::sum, 0, 1, detail::cell::sum, false, "X output",
     "01 01"},
    {detail::s::norm1, "norm1", "norm($0, $1) → ($0, $1)", 0, 1, detail::cell::norm, false,
     "residual1", "01"},
    {detail::s::ffn_pre, "ffn_pre", detail::affine, 0, 2, detail::cell::affine, false,
     "norm1 W1 b1", "01 12 32"},
    {detail::s::ffn_hidden, "ffn_hidden", "ReLU($0, $1) → ($0, $1)", 0, 1, detail::cell::relu,
     false, "ffn_pre", "01"},
    {detail::s::ffn_out, "ffn_out", detail::affine, 0, 2, detail::cell::affine, false,
     "ffn_hidden W2 b2", "01 12 32"},
    {detail::s::residual2, "residual2", detail::sum, 0, 1, detail::cell::sum, false,
     "norm1 ffn_out", "01 01"},
    {detail::s::norm2, "norm2", "norm($0, $1) → ($0, $1)", 0, 1, detail::cell::norm, false,
     "residual2", "01"},
    {detail::s::x_t, "x_t", detail::input, 0, 1, detail::cell::none, false, "", "", "sinusoidal"},
    {detail::s::k_new, "k_new", detail::product, 0, 2, detail::cell::dot, false, "x_t W_K",
     "01 12"},
    {detail::s::v_new, "v_new", detail::product, 0, 2, detail::cell::dot, false, "x_t W_V",
     "01 12"},
    {detail::s::k_cache, "k_cache", detail::append, 3, 1, detail::cell::none, false,
     "K_cache k_new|k_rot|k_norm", "01 21", "ring"},
    {detail::s::v_cache, "v_cache", detail::append, 3, 1, detail::cell::none, false,
     "V_cache v_new", "01 21", "ring"},
    {detail::s::stacked, "stacked", "$0 × ($1, $2) → ($3, $2)", 3, 2, detail::cell::none, false, "",
     ""},
    {detail::s::causal_reference, "causal_reference", detail::input, 0, 1, detail::cell::none,
     false, "", "", "scale causal window sink-tokens one-sided rope qk-norm softcap sinks"},
    {detail::s::tile_scores, "tile_scores", "($0, $1) @ ($1, $2) ÷ $s1 → ($0, $2)", 0, 2,
     detail::cell::scaled_dot_rows, false, "Q_i K_j", "01 21", "scale causal window"},
    {detail::s::tile_max, "tile_max", "max(μ, rowmax($0, $1)) → ($0, $2)", 0, 2,
     detail::cell::running_max, false, "m tile_scores", "02 01"},
    {detail::s::tile_sum, "tile_sum", "α·Z + rowsum($0, $1) → ($0, $2)", 0, 2,
     detail::cell::running_sum, false, "l α P", "02 02 01"},
    {detail::s::tile_out, "tile_out", "α·O + ($0, $1) @ ($1, $2) → ($0, $2)", 0, 2,
     detail::cell::running_out, false, "O α P V_j", "02 03 01 12"},
    {detail::s::block_out, "block_out", "($0, $1) ÷ l → ($0, $1)", 0, 1, detail::cell::divide_rows,
     false, "O l", "01 02"},
    {detail::s::reference, "reference", detail::input, 0, 1, detail::cell::none, false, "", "",
     "scale causal window"},
    {detail::s::pruned, "pruned", "($0, $1) ⊙ gate → ($0, $1)", 0, 1, detail::cell::gate, false,
     "concat gate", "01 21"},
    {detail::s::embedded, "embedded", detail::sum, 0, 1, detail::cell::sum, false, "E P", "01 01"},
    {detail::s::residual, "residual", detail::sum, 0, 1, detail::cell::sum, false, "X output",
     "01 01"},
    {detail::s::logits, "logits", detail::product, 0, 2, detail::cell::dot, false, "X W_U",
     "01 12"},
    {detail::s::probabilities, "probabilities", "softmax($0, $1) → ($0, $1)", 0, 1,
     detail::cell::softmax, true, "logits", "01"},
    {detail::s::token_loss, "token_loss", "−ln ($0, $1)[next] → ($2, $3)", 2, 3,
     detail::cell::neg_log, false, "probabilities next", "01 23"},
    {detail::s::loss, "loss", "mean($0, $1) → ($1, $1)", 1, 1, detail::cell::mean, false,
     "token_loss counted", "01 01"},
    {detail::s::d_output, "d_output", detail::input, 0, 1, detail::cell::none, false, "", ""},
    {detail::s::d_w_o, "d_w_o", detail::product_tn, 0, 2, detail::cell::dot_cols, false,
     "concat d_output", "10 12"},
    {detail::s::d_concat, "d_concat", detail::product_nt, 0, 2, detail::cell::dot_rows, false,
     "d_output W_O", "01 21"},
    {detail::s::d_head, "d_head", "($1, $3) → $0 × ($1, $2)", 1, 2, detail::cell::head_column,
     false, "d_concat|d_output", "13"},
    {detail::s::d_weights, "d_weights", detail::product_nt, 0, 2, detail::cell::dot_rows, false,
     "d_head V", "01 21"},
    {detail::s::d_scaled, "d_scaled", "($0, $1) ⊙ (($0, $1) − rowsum) → ($0, $1)", 0, 1,
     detail::cell::softmax_backward, true, "weights d_weights", "01 01",
     "causal prefix window documents padding one-sided symmetric"},
    {detail::s::d_scores, "d_scores", "($0, $1) ÷ $s2 → ($0, $1)", 0, 1, detail::cell::divide,
     false, "d_scaled", "01", "scale"},
    {detail::s::d_q, "d_q", detail::product, 0, 2, detail::cell::dot, false, "d_scores K", "01 12"},
    {detail::s::d_q_rot, "d_q_rot", detail::product, 0, 2, detail::cell::dot, false,
     "d_scores k_rot", "01 12"},
    {detail::s::d_q_unrot, "d_q_unrot", detail::turn_back, 0, 1, detail::cell::rotate, false,
     "d_q_rot θ angle cos sin pairs", "01 32 02 02 02 24"},
    {detail::s::d_v, "d_v", detail::group_tn, 0, 2, detail::cell::group_dot_cols, false,
     "weights* d_head*", "3:10 3:12"},
    {detail::s::d_k, "d_k", detail::group_tn, 0, 2, detail::cell::group_dot_cols, false,
     "d_scores* Q*", "3:10 3:12"},
    {detail::s::d_k_rot, "d_k_rot", detail::group_tn, 0, 2, detail::cell::group_dot_cols, false,
     "d_scores* q_rot*", "3:10 3:12"},
    {detail::s::d_k_unrot, "d_k_unrot", detail::turn_back, 0, 1, detail::cell::rotate, false,
     "d_k_rot θ angle cos sin pairs", "01 32 02 02 02 24"},
    {detail::s::d_w_q, "d_w_q", detail::product_tn, 0, 2, detail::cell::dot_cols, false,
     "X|x_pos d_q|d_q_unrot", "10 12"},
    {detail::s::d_w_k, "d_w_k", detail::product_tn, 0, 2, detail::cell::dot_cols, false,
     "X|x_pos d_k|d_k_unrot", "10 12"},
    {detail::s::d_w_v, "d_w_v", detail::product_tn, 0, 2, detail::cell::dot_cols, false,
     "X|x_pos d_v", "10 12"},
    {detail::s::d_x, "d_x", "Σ $2 × ($0, $1) → ($0, $1)", 0, 1, detail::cell::sum, false,
     "d_q·W_Qᵀ* d_k·W_Kᵀ* d_v·W_Vᵀ*", "3:01 4:01 4:01", "sinusoidal"},
};

// The entry of a stage.
const stage_entry &entry(stage_id id);

// The stage's name, e.g. "scores".
inline const char *name_of(stage_id id) {
    return entry(id).name;
}

// The stage with this name, if any.
std::optional<stage_id> stage_named(const std::string &name);

// Every stage name, comma-separated, for messages.
std::string stage_names();

// One operand's declared shape: dims[rows] × dims[cols], dims[count] of them for a name* list.
constexpr std::size_t no_count = std::size_t(-1);
struct operand_shape {
    std::size_t count, rows, cols;
};
std::vector<operand_shape> shapes_of(const stage_entry &e); // one per token of e.operands

// How many doubles a stage records with these dims: its values, its row totals and every operand,
// by the entry's shapes.
std::size_t stage_values(stage_id id, const std::vector<std::size_t> &dims);

// Whether `names`, the operands a pass recorded, are the ones the entry declares (in order;
// a name* takes every operand so named). Empty when they are, else what differs.
// declared_at, when given, receives each recorded operand's token index in e.operands.
std::string operand_mismatch(const stage_entry &e, const std::vector<std::string> &names,
                             std::vector<std::size_t> *declared_at = nullptr);

} // namespace attention
