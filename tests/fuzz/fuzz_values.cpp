#include "fuzz_values.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace fuzz {

using namespace attention;

namespace {

// Every field a spec of some kind may hold, and "bogus", which none does.
const char *const field_names[] = {"preset",
                                   "seed",
                                   "skip",
                                   "seqLen",
                                   "queryLen",
                                   "keyLen",
                                   "dModel",
                                   "numHeads",
                                   "numKvHeads",
                                   "dK",
                                   "dV",
                                   "dFF",
                                   "validKeys",
                                   "blockRows",
                                   "blockCols",
                                   "causal",
                                   "outputProjection",
                                   "scaleScores",
                                   "weightScale",
                                   "prunedHeads",
                                   "tokens",
                                   "window",
                                   "prefix",
                                   "documents",
                                   "positionalEncoding",
                                   "rope",
                                   "alibi",
                                   "dOutput",
                                   "X",
                                   "X_q",
                                   "X_kv",
                                   "W_Q",
                                   "W_K",
                                   "W_V",
                                   "W_O",
                                   "checkpoint",
                                   "scored",
                                   "softcap",
                                   "sinks",
                                   "qkNorm",
                                   "qNormGain",
                                   "kNormGain",
                                   "sinkTokens",
                                   "dLatent",
                                   "dRope",
                                   "W_DKV",
                                   "W_UK",
                                   "W_UV",
                                   "W_KR",
                                   "W_QR",
                                   "bogus"};

const char *const kinds[] = {"self",     "cross",    "encoder-layer", "kv-cache", "flash",
                             "designed", "backward", "model",         "mla",      "no-such-kind"};

// The strings the fields take (an encoding, a pairing, a checkpoint, a preset), or a word.
const char *const known_words[] = {"sinusoidal", "interleaved",       "half-split",   "trained",
                                   "untrained",  "lesson-multi-head", "masks-padding"};

value number_list(byte_reader &in, std::size_t n) {
    value_list out;
    for (std::size_t i = 0; i < n; ++i)
        out.emplace_back(in.number());
    return out;
}

value matrix(byte_reader &in) {
    const std::size_t r = in.byte() % 7, c = in.byte() % 7;
    value_list rows;
    for (std::size_t i = 0; i < r; ++i) {
        value_list row;
        for (std::size_t j = 0; j < c; ++j)
            row.emplace_back(in.entry());
        rows.emplace_back(std::move(row));
    }
    return rows;
}

value text(byte_reader &in) {
    const std::uint8_t tag = in.byte();
    return tag < 2 * std::size(known_words) ? value(known_words[tag % std::size(known_words)])
                                            : value(in.word());
}

value any_value(byte_reader &in, int depth = 0);

// RoPE's record: base, convention, dims, offset, each present or not, each of any type.
value rope_record(byte_reader &in, int depth) {
    value_record out;
    for (const char *name : {"base", "convention", "dims", "offset"})
        if (in.byte() % 2)
            out.emplace_back(name, depth < 1 ? any_value(in, depth + 1) : value(in.number()));
    return out;
}

value any_value(byte_reader &in, int depth) {
    switch (in.byte() % 10) {
    case 0:
        return in.byte() % 2 == 1;
    case 1:
        return text(in);
    case 2:
        return nullptr;
    case 3:
        return number_list(in, in.byte() % 9);
    case 4:
        return matrix(in);
    case 5: {
        value_list heads;
        for (std::size_t h = in.byte() % 4; h > 0; --h)
            heads.push_back(matrix(in));
        return heads;
    }
    case 6:
        return rope_record(in, depth);
    case 7: {
        value_list words;
        for (std::size_t n = in.byte() % 9; n > 0; --n)
            words.emplace_back(text(in));
        return words;
    }
    default:
        return in.number(); // numbers most often: most fields are sizes
    }
}

bool has(const value_record &r, const std::string &name) {
    return std::any_of(r.begin(), r.end(), [&](const auto &f) { return f.first == name; });
}

} // namespace

value read_value_spec(byte_reader &in) {
    value_record spec;
    spec.emplace_back("kind", kinds[in.byte() % std::size(kinds)]);
    for (std::size_t n = in.byte() % 12; n > 0 && !in.exhausted(); --n) {
        const std::string name = field_names[in.byte() % std::size(field_names)];
        value v = any_value(in);
        if (!has(spec, name)) // a JS object holds each key once
            spec.emplace_back(name, std::move(v));
    }
    return spec;
}

} // namespace fuzz
