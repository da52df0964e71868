// Which keys each query may see, as one span [begin, end) of key positions per query row, and
// the mask M those spans make: 0 where a query sees a key, −∞ where it may not.
// T = query rows, T_kv = keys.
#pragma once

#include "attention/config.hpp"
#include "attention/gemm.hpp"
#include "attention/matrix.hpp"

#include <vector>

namespace attention {

// The rules a mask combines, in the order visible_keys applies them, each narrowing the keys a
// query sees: causal (j ≤ i), prefix (causal, but the first P see each other: j ≤ i or j < P),
// window (j > i − W), sink tokens (StreamingLLM: the first k stay seen, and the window keeps the
// W − k latest: j < k or j > i − (W − k)), documents (j from the first token of i's document),
// padding (j < valid).
enum class mask_rule { causal, prefix, window, sink_tokens, documents, padding };

// "causal", "prefix", "window", "sink-tokens", "documents", "padding": a stage's terms (trace.hpp)
// name them so.
const char *name_of(mask_rule r);

// The rules of c's mask in force, in visible_keys' order: a prefix replaces the causal rule it
// widens; window and documents come with it (causal_mask). None without a mask.
std::vector<mask_rule> mask_rules(const attention_config &c);

// The keys query i sees under c's mask: [0, i + 1) when causal, [i + 1 − W, i + 1) in a window
// of W, [0, P) for the first P under a prefix, [start of i's document, i + 1) in packed
// documents, [0, valid_keys) for padding, [0, T_kv) without a mask; masks together leave what
// each leaves. Both ends never move back as i grows. Under sink tokens the span runs from key 0:
// the keys between the sinks and the window (sink_gap) are hidden inside it.
key_span visible_keys(const attention_config &c, std::size_t i);

// Under sink tokens k with a window W, the keys query i does not see inside its span: [k, i + 1 −
// (W − k)), between the sinks and the W − k latest keys; empty otherwise.
key_span sink_gap(const attention_config &c, std::size_t i);

// visible_keys for every query row of c. (T) spans.
row_spans visible_spans(const attention_config &c);

// The transpose of `keys` (one span per query row): for each of n_keys keys, the queries that see
// it, [first, last + 1); an empty span for a key no query sees. Contiguous, since both ends of the
// queries' spans never move back. (n_keys) spans.
row_spans seeing_queries(const row_spans &keys, std::size_t n_keys);

// Every key for each of `rows` rows: what an unmasked pass, or a trace's whole score matrix,
// computes. (rows) spans of [0, keys).
row_spans all_keys(std::size_t rows, std::size_t keys);

// The mask M added to the logits: 0 inside each row's span, −∞ outside it. (rows, keys).
matrix mask_of(const row_spans &spans, std::size_t keys);

// The mask M of c for queries seeing `spans`: mask_of, with −∞ in each row's sink gap too.
// (rows, keys).
matrix mask_of(const attention_config &c, const row_spans &spans, std::size_t keys);

// The mask of c: mask_of(c, visible_spans(c), T_kv). (T, T_kv).
matrix attention_mask(const attention_config &c);

} // namespace attention
