// numpy's reference values (tests/fixtures/lesson-reference.json, made by
// scripts/make-reference.py): the sizes numpy used for each preset and each custom spec, the
// custom specs themselves, and its matrices keyed "case:stage/head", "case:operand" or
// "randn/seed/RxC" (a case is a preset id or a custom spec's name). The same file the WASM tests
// read (tests/wasm/support.mjs), read with nlohmann/json (Debian nlohmann-json3-dev).
#pragma once

#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "attention/matrix.hpp"

namespace reference {

// A case's sizes as numpy used them, by the engine's JS names, each value as compact JSON (text
// bare): "seqLen" → "5", "causal" → "false", "validKeys" → "null", "kind" → "cross",
// "prunedHeads" → "[1,3]"; an object's fields as "rope.base" → "100" beside "rope" → "true".
// Or a custom spec's own fields, written the same way.
using sizes = std::map<std::string, std::string>;

struct file {
    std::map<std::string, sizes> presets;
    std::map<std::string, sizes> custom;       // a custom spec's sizes, by its name
    std::map<std::string, sizes> custom_specs; // the custom spec as engine.run takes it
    std::map<std::string, attention::matrix> matrices;
};

// The fixture's format: scripts/make-reference.py's VERSION, its "version" field.
constexpr int version = 7;

// One fixture file of tests/fixtures, refused unless it is of this version.
inline nlohmann::json read_json(const std::string &name) {
    const std::string path = std::string(FIXTURE_DIR) + "/" + name;
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    nlohmann::json all = nlohmann::json::parse(in);
    if (all.value("version", 0) != version)
        throw std::runtime_error(name + " is version " + all.value("version", nlohmann::json()).dump() +
                                 ", not " + std::to_string(version) +
                                 ": regenerate it with scripts/make-reference.py");
    return all;
}

inline std::string text_of(const nlohmann::json &value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
}

// {"seqLen": 5, "rope": {"base": 100}} → seqLen=5, rope=true, rope.base=100.
inline sizes fields_of(const nlohmann::json &record) {
    sizes out;
    for (const auto &[key, value] : record.items()) {
        out[key] = value.is_object() ? "true" : text_of(value);
        if (value.is_object())
            for (const auto &[field, v] : value.items())
                out[key + "." + field] = text_of(v);
    }
    return out;
}

// Each matrix from its rows, null (a masked cell) read back as −∞.
inline std::map<std::string, attention::matrix> matrices_of(const nlohmann::json &by_key) {
    std::map<std::string, attention::matrix> out;
    for (const auto &[key, rows] : by_key.items()) {
        const std::size_t r = rows.size(), c = r ? rows[0].size() : 0;
        attention::matrix m({r, c});
        for (std::size_t i = 0; i < r; ++i) {
            if (rows[i].size() != c)
                throw std::runtime_error(key + ": row " + std::to_string(i) + " is not " +
                                         std::to_string(c) + " long");
            for (std::size_t j = 0; j < c; ++j) {
                const nlohmann::json &v = rows[i][j];
                m(i, j) = v.is_null() ? -std::numeric_limits<double>::infinity() : v.get<double>();
            }
        }
        out.emplace(key, std::move(m));
    }
    return out;
}

inline file load() {
    const nlohmann::json all = read_json("lesson-reference.json");
    file out;
    for (const auto &[id, fields] : all.at("presets").items())
        out.presets[id] = fields_of(fields);
    for (const auto &[name, c] : all.at("custom").items()) {
        out.custom[name] = fields_of(c.at("sizes"));
        out.custom_specs[name] = fields_of(c.at("spec"));
    }
    out.matrices = matrices_of(all.at("matrices"));
    return out;
}

inline const file &loaded() {
    static const file all = load();
    return all;
}

inline const std::map<std::string, attention::matrix> &matrices() {
    return loaded().matrices;
}

inline const std::map<std::string, sizes> &presets() {
    return loaded().presets;
}

inline const std::map<std::string, sizes> &custom() {
    return loaded().custom;
}

inline const std::map<std::string, sizes> &custom_specs() {
    return loaded().custom_specs;
}

} // namespace reference
