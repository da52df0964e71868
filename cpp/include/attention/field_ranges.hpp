// The ranges of the spec's number fields, written once: the readers check a field against its
// range here (in_range), and engine.limits() hands the same table to the page, whose form checks
// its fields by it. A field bounded by another (validKeys ≤ T_kv, numKvHeads dividing numHeads,
// prefix ≤ T, …) has here the widest range it can take; its reader checks the rest, knowing both.
#pragma once

#include <cstddef>
#include <string>

#include "attention/config.hpp"
#include "attention/value.hpp"

namespace attention {

struct field_range {
    const char *field;
    double min, max;
    bool above_min = false; // (min, max] rather than [min, max]
};

inline constexpr double max_seed = 4294967295.0;  // numpy's seeds: 32 bits
inline constexpr std::size_t max_word_chars = 40; // a token label, in UTF-16 units as JS counts

inline constexpr field_range field_ranges[] = {
    {"seqLen", 1, limits::max_seq_len},
    {"queryLen", 1, limits::max_seq_len},
    {"keyLen", 1, limits::max_seq_len},
    {"dModel", 1, limits::max_d_model},
    {"numHeads", 1, limits::max_heads},
    {"numKvHeads", 1, limits::max_heads},
    {"dK", 1, limits::max_head_dim},
    {"dV", 1, limits::max_head_dim},
    {"dFF", 1, limits::max_d_ff},
    {"dLatent", 1, limits::max_head_dim},
    {"dRope", 0, limits::max_head_dim},
    {"validKeys", 1, limits::max_seq_len},
    {"blockRows", 1, limits::max_seq_len},
    {"blockCols", 1, limits::max_seq_len},
    {"window", 1, max_seed},
    {"sinkTokens", 1, limits::max_seq_len},
    {"prefix", 0, limits::max_seq_len},
    {"documents", 1, limits::max_seq_len},
    {"prunedHeads", 0, limits::max_heads - 1},
    {"seed", 0, max_seed},
    {"skip", 0, limits::max_skip},
    {"weightScale", 0, 10, true},
    {"softcap", 0, 1e300, true},
    {"rope.offset", 0, limits::max_skip},
    {"rope.dims", 2, limits::max_head_dim},
    {"words", 1, limits::max_designed_tokens}, // kind designed's tokens
    {"wordLength", 1, max_word_chars},
};

// The range of a field of the table (a logic_error for a name it does not hold).
const field_range &range_of(const std::string &field);

// v as a whole number within field's range, refused by name: "dModel: 0 is out of range [1, 1024]".
std::size_t in_range(const std::string &field, double v);

// engine.limits(): { field: { min, max } or, for a range open below, { above, max } }.
value limits_answer();

} // namespace attention
