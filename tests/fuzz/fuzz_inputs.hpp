// Fuzz input → a spec of every kind the engine takes: generated (self, cross, encoder layer,
// KV-cache decoding, flash, designed), explicit (self or cross), or a preset with one field
// overwritten; and a KV-cache size query. The byte layout is make-seeds.py's.
#pragma once

#include <cstdint>
#include <variant>

#include "attention/kv_size.hpp"
#include "attention/spec.hpp"
#include "attention/value.hpp"
#include "byte_reader.hpp"

namespace fuzz {

// Input byte 0, mod 9: which spec follows.
enum class mode : std::uint8_t {
    self,
    cross,
    encoder_layer,
    kv_cache,
    flash,
    designed, // generated, in problem_kind's order
    explicit_self,
    explicit_cross,
    preset
};
inline constexpr unsigned mode_count = 9;

// A generated spec (presets too), an explicit one, or one as JS gives it (fuzz_values.hpp).
using any_spec =
    std::variant<attention::generated_spec, attention::explicit_spec, attention::value>;

// Byte 0 picks the mode (10–23: a spec as JS gives it, fuzz_values.hpp); the rest fill its fields
// in the order the spec declares them. A preset id that names no preset throws
// std::invalid_argument, as preset() does for a caller.
any_spec read_spec(byte_reader &in);

attention::kv_cache_query read_kv_query(byte_reader &in);

// Normals a generated spec would draw if every size it gives were valid (0 when one is not a
// finite positive number, since then validation refuses it before drawing): the harness skips
// specs above its budget so that one input cannot take seconds.
double draws_if_valid(const attention::generated_spec &s);

} // namespace fuzz
