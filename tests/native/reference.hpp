// numpy's reference values (tests/fixtures/lesson-reference.txt, made by
// scripts/make-reference.py): the sizes numpy used for each preset and each custom spec, the
// custom specs themselves, and its matrices keyed "case:stage/head", "case:operand" or
// "randn/seed/RxC" (a case is a preset id or a custom spec's name).
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attention/matrix.hpp"

namespace reference {

// A case's sizes as numpy used them, by the engine's JS names: "seqLen" → "5",
// "causal" → "false", "validKeys" → "null", "kind" → "cross", "prunedHeads" → "[1,3]"; or a
// custom spec's own fields, written the same way.
using sizes = std::map<std::string, std::string>;

struct file {
    std::map<std::string, sizes> presets;
    std::map<std::string, sizes> custom;       // a custom spec's sizes, by its name
    std::map<std::string, sizes> custom_specs; // the custom spec as engine.run takes it
    std::map<std::string, attention::matrix> matrices;
};

// "preset id key=value …", "custom name key=value …" or "spec name key=value …"
inline void read_fields(std::istringstream &words, std::map<std::string, sizes> &to) {
    std::string id, word;
    words >> id;
    sizes &s = to[id];
    while (words >> word) {
        const std::size_t eq = word.find('=');
        s[word.substr(0, eq)] = word.substr(eq + 1);
    }
}

// "key rows cols v…"
inline void read_matrix(const std::string &key, std::istringstream &words, file &out) {
    std::size_t r = 0, c = 0;
    words >> r >> c;
    attention::matrix m({r, c});
    std::string word;
    for (double &v : m) {
        words >> word;
        v = std::strtod(word.c_str(), nullptr); // strtod reads "-inf" too
    }
    out.matrices.emplace(key, std::move(m));
}

// The fixture's format: scripts/make-reference.py's VERSION, written in its first line.
constexpr int version = 7;

inline file load() {
    std::ifstream in(std::string(FIXTURE_DIR) + "/lesson-reference.txt");
    if (!in)
        throw std::runtime_error("cannot open lesson-reference.txt in " FIXTURE_DIR);
    file out;
    std::string line;
    std::getline(in, line);
    if (line.rfind("# version " + std::to_string(version) + " ", 0) != 0)
        throw std::runtime_error("lesson-reference.txt starts \"" + line + "\", not version " +
                                 std::to_string(version) +
                                 ": regenerate it with scripts/make-reference.py");
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        std::string key;
        words >> key;
        if (key == "preset")
            read_fields(words, out.presets);
        else if (key == "custom")
            read_fields(words, out.custom);
        else if (key == "spec")
            read_fields(words, out.custom_specs);
        else
            read_matrix(key, words, out);
    }
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
