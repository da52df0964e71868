// numpy's reference values (tests/fixtures/lesson-reference.txt, made by
// scripts/make-reference.py), keyed "example:stage/head" or "randn/seed/RxC".
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "attention/matrix.hpp"

namespace reference {

inline std::map<std::string, attention::matrix> load() {
    std::ifstream in(std::string(FIXTURE_DIR) + "/lesson-reference.txt");
    if (!in)
        throw std::runtime_error("cannot open lesson-reference.txt in " FIXTURE_DIR);
    std::map<std::string, attention::matrix> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream words(line);
        std::string key, word;
        std::size_t r = 0, c = 0;
        words >> key >> r >> c;
        attention::matrix m({r, c});
        for (double &v : m) {
            words >> word;
            v = std::strtod(word.c_str(), nullptr); // strtod reads "-inf" too
        }
        out.emplace(key, std::move(m));
    }
    return out;
}

inline const std::map<std::string, attention::matrix> &matrices() {
    static const auto all = load();
    return all;
}

} // namespace reference
