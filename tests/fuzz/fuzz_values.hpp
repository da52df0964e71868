// A spec as JS would give one: a record of fields named from every field any kind takes (and one
// that none does), each holding a value of any type, read by the core's one reader of a JS spec
// (spec_reader.hpp's problem_from) — so that every field added since the generated modes were
// written (window, prefix, documents, positionalEncoding, rope, alibi, dOutput, checkpoint, model
// tokens, scored, softcap, sinks, qkNorm and its gains, sinkTokens, MLA's dLatent, dRope and
// matrices) meets every kind, every type
// and every hostile number.
#pragma once

#include "attention/value.hpp"
#include "byte_reader.hpp"

namespace fuzz {

// Whether the mode byte asks for a spec as JS gives one: bytes 10–23, which no committed corpus
// input starts with, so that the committed inputs keep their meaning.
inline bool is_value_mode(std::uint8_t mode) {
    return mode >= 10 && mode <= 23;
}

// The record: "kind" first (a kind by a byte, or a name that is none), then up to 11 fields, each
// named by a byte and holding a number, a boolean, a string, null, a list of numbers, a matrix,
// a list of matrices, a record of RoPE's fields or a list of words, by a type byte.
attention::value read_value_spec(byte_reader &in);

} // namespace fuzz
