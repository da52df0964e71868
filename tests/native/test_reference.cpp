// Every preset the engine defines, and every custom spec the fixture names, against numpy
// (tests/fixtures, scripts/make-reference.py): every stage of every head (and of every decode
// step and tile), every drawn weight and bias, the designed heads' built X and weights, the mask
// M, a pruned case's gate and outputChange, each head's contribution to the output, the weights'
// row totals, and the operands that change from step to step (the old KV cache; a tile's Q_i,
// K_j, V_j, m, l, O, α and P). What is drawn or built (X, X_q, X_kv, x_t, W…, b…, M, gate) must
// be numpy's bit for bit: both sides multiply the same normals by the same weightScale. What is
// computed must match to 1e-12.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "attention/engine.hpp"
#include "attention/fields.hpp"
#include "attention/presets.hpp"
#include "attention/spec.hpp"
#include "attention/spec_reader.hpp"
#include "attention/validation.hpp"
#include "check.hpp"
#include "reference.hpp"

using namespace attention;

namespace {

// "preset:scores/2", "preset:output"; in a decode step or a tile "preset:scores/2@3",
// "preset:x_t/-@0".
std::string key_of(const std::string &preset, const std::string &name, int head,
                   int step = no_step) {
    const std::string h = head == no_head ? "" : std::to_string(head);
    if (step == no_step)
        return preset + ":" + name + (h.empty() ? "" : "/" + h);
    return preset + ":" + name + "/" + (h.empty() ? "-" : h) + "@" + std::to_string(step);
}

// The stages drawn from the generator (or given) rather than computed: the inputs, and the
// backward pass's dO.
bool is_drawn(stage_id id) {
    return id == stage_id::x || id == stage_id::x_q || id == stage_id::x_kv ||
           id == stage_id::x_t || id == stage_id::d_output;
}

// Operands drawn (W…, b…) or built (M is 0 or −∞, the pruning gate 1 or 0): one fixture per
// case, by name and head.
bool is_drawn(const operand &o) {
    return o.name[0] == 'W' || o.name == "b1" || o.name == "b2" || o.name == "M" ||
           o.name == "gate";
}

// Operands that change from step to step and are no stage of the same step, keyed under their
// stage ("…/0@4:α").
bool is_stepped(const stage &s, const operand &o) {
    static const std::set<std::string> names{"K_cache", "V_cache", "Q_i", "K_j", "V_j",
                                             "m",       "l",       "O",   "α",   "P"};
    return s.step != no_step && names.count(o.name) == 1;
}

// The fixture keys numpy wrote for one case, e.g. every "lesson-causal:…".
std::set<std::string> fixture_keys(const std::string &preset) {
    std::set<std::string> keys;
    for (const auto &[key, m] : reference::matrices())
        if (key.rfind(preset + ":", 0) == 0)
            keys.insert(key);
    return keys;
}

// Checks each named matrix of one case against numpy's, remembering the keys it used.
struct comparer {
    std::string preset;
    std::set<std::string> compared;

    void operator()(const std::string &key, bool exact, const matrix &got) {
        INFO("fixture " << key);
        REQUIRE(reference::matrices().count(key) == 1);
        check::tensor(key, got, reference::matrices().at(key), exact ? 0.0 : 1e-12);
        compared.insert(key);
    }
};

void compare_trace(const trace &t, comparer &compare) {
    const std::string &p = compare.preset;
    // Kind model: each layer has weights of its own, keyed by layer like its stages, and its x
    // is the stream the layers before it computed, not a draw.
    const bool model = t.config.kind == problem_kind::model;
    for (const stage &s : t.stages) {
        const std::string key = key_of(p, name_of(s.id), s.head, s.step);
        compare(key, is_drawn(s.id) && !model, s.values);
        if (s.id == stage_id::weights) // (T, 1): every row sums to 1
            compare(key_of(p, "totals", s.head, s.step), false, s.totals);
        if (s.id == stage_id::d_scaled) // (T, 1): every row sums to 0
            compare(key + ":totals", false, s.totals);
        for (const operand &o : s.operands) {
            if (is_drawn(o))
                compare(key_of(p, o.name, o.head, model ? s.step : no_step), true, o.values);
            else if (is_stepped(s, o) && rows(o.values) == 0)
                CHECK(s.step == 0); // only the cache before the first token is empty: no fixture
            else if (is_stepped(s, o))
                compare(key + ":" + o.name, false, o.values);
            else if (o.name == "contribution" && s.step == no_step) // decode steps: summed only
                compare(key_of(p, o.name, o.head), false, o.values);
            else if ((o.name == "B" || o.name == "PE") && s.step == no_step) // ALiBi's, X's
                compare(key_of(p, o.name, o.head), false, o.values);
        }
    }
    if (t.checks.output_change) // ‖Δoutput‖ / ‖output‖ of a pruned case, as a 1 × 1 matrix
        compare(p + ":outputChange", false, matrix({1, 1}, *t.checks.output_change));
}

std::string whole(double v) {
    return std::to_string(static_cast<std::uint64_t>(v));
}

std::string flag(bool v) {
    return v ? "true" : "false";
}

std::string kind_text(problem_kind k) {
    const char *const names[] = {"self",  "cross",    "encoder-layer", "kv-cache",
                                 "flash", "designed", "backward",      "model", "mla"};
    return names[static_cast<int>(k)]; // problem_kind's order
}

// Heads as compact JSON: "[1,3]".
std::string list_text(const std::vector<std::size_t> &heads) {
    std::string out = "[";
    for (std::size_t h : heads)
        out += (out.size() > 1 ? "," : "") + std::to_string(h);
    return out + "]";
}

// The positions and masks fields as the fixture writes them: an absent one null (documents []),
// RoPE's settings under rope.… beside rope=true.
// Numbers as the fixture's JSON writes them: a whole one as an integer (2, not 2.0).
std::string json_numbers(const std::vector<double> &v) {
    nlohmann::json list = nlohmann::json::array();
    for (double x : v)
        list.push_back(x == std::floor(x) && std::fabs(x) < 1e15 ? nlohmann::json(std::int64_t(x))
                                                                 : nlohmann::json(x));
    return list.dump();
}

void add_positions(reference::sizes &out, const attention_config &c) {
    const auto n = [](std::optional<std::size_t> v) { return v ? std::to_string(*v) : "null"; };
    out["positionalEncoding"] = c.sinusoidal ? "sinusoidal" : "null";
    out["alibi"] = flag(c.alibi);
    out["softcap"] = c.softcap ? js_number(*c.softcap) : "null";
    out["sinks"] = c.sinks.empty() ? "null" : json_numbers(c.sinks);
    out["qkNorm"] = c.qk_norm ? "true" : "null";
    out["qNormGain"] = c.qk_norm ? json_numbers(c.q_norm_gain) : "null";
    out["kNormGain"] = c.qk_norm ? json_numbers(c.k_norm_gain) : "null";
    out["rope"] = c.rope ? "true" : "null";
    if (c.rope) {
        out["rope.base"] = js_number(c.rope->base);
        out["rope.convention"] = c.rope->half_split ? "half-split" : "interleaved";
        out["rope.offset"] = std::to_string(c.rope->offset);
        out["rope.dims"] = std::to_string(c.rope->dims);
    }
    out["window"] = n(c.window);
    out["sinkTokens"] = n(c.sink_tokens);
    out["prefix"] = n(c.prefix);
    out["documents"] = list_text(c.documents);
}

// A case's sizes after the engine resolved its defaults, written as the fixture writes them.
// The designed heads and explicit matrices draw nothing: no seed, no weight scale. skip: the
// normals discarded first.
reference::sizes sizes_of(const problem &p, double skip) {
    const attention_config &c = p.config;
    const auto n = [](std::size_t v) { return std::to_string(v); };
    const bool built =
        c.kind == problem_kind::designed || c.kind == problem_kind::model || std::isnan(p.seed);
    reference::sizes out{{"kind", kind_text(c.kind)},
                         {"seed", built ? "null" : whole(p.seed)},
                         {"skip", whole(skip)},
                         {"seqLen", n(c.seq_len)},
                         {"kvLen", n(c.kv_len)},
                         {"dModel", n(c.d_model)},
                         {"numHeads", n(c.num_heads)},
                         {"numKvHeads", n(c.num_kv_heads)},
                         {"dK", n(c.d_k)},
                         {"dV", n(c.d_v)},
                         {"dFF", c.kind == problem_kind::encoder_layer ? n(c.d_ff) : "null"},
                         {"validKeys", c.valid_keys ? n(*c.valid_keys) : "null"},
                         {"causal", flag(c.causal)},
                         {"outputProjection", flag(c.output_projection)},
                         {"scaleScores", flag(c.scale_scores)},
                         {"blockRows", c.kind == problem_kind::flash ? n(c.block_rows) : "null"},
                         {"blockCols", c.kind == problem_kind::flash ? n(c.block_cols) : "null"},
                         {"weightScale", built ? "null" : js_number(c.weight_scale)},
                         {"prunedHeads", list_text(c.pruned_heads)}};
    add_positions(out, c);
    if (c.kind == problem_kind::mla) {
        out["dLatent"] = n(c.d_latent);
        out["dRope"] = n(c.d_rope);
    }
    if (c.kind == problem_kind::model) {
        out["vocab"] = n(c.vocab);
        out["numLayers"] = n(c.num_layers);
    }
    return out;
}

// "[1,3]" → {1, 3}.
std::vector<double> numbers_of(const std::string &list) {
    std::vector<double> out;
    std::istringstream in(list.substr(1, list.size() - 2));
    for (std::string v; std::getline(in, v, ',');)
        out.push_back(std::stod(v));
    return out;
}

// The lists one level inside "[[…],[…]]" (or "[[[…]],[[…]]]"), each with its brackets.
std::vector<std::string> items_of(const std::string &list) {
    std::vector<std::string> out;
    int depth = 0;
    for (std::size_t i = 1; i + 1 < list.size(); ++i) {
        depth += list[i] == '[' ? 1 : list[i] == ']' ? -1 : 0;
        if (list[i] == '[' && depth == 1)
            out.emplace_back();
        if (depth > 0 || list[i] == ']')
            out.back() += list[i];
    }
    return out;
}

// "[[1,2],[3,4]]" → a matrix's rows, as an explicit spec's matrix arrives.
row_list rows_of(const std::string &list) {
    row_list out;
    for (const std::string &row : items_of(list))
        out.push_back(numbers_of(row));
    return out;
}

// One value of a custom spec's line as engine.run's conversion would give it: true/false, a
// list of matrices (one per head), a matrix, a list of numbers, a number, else text.
field_value value_of(const std::string &text) {
    if (text == "true" || text == "false")
        return text == "true";
    if (text.rfind("[[[", 0) == 0) {
        std::vector<row_list> heads;
        for (const std::string &m : items_of(text))
            heads.push_back(rows_of(m));
        return heads;
    }
    if (text.rfind("[[", 0) == 0)
        return rows_of(text);
    if (text.front() == '[')
        return numbers_of(text);
    char *end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    return *end == '\0' ? field_value(number) : field_value(text);
}

// A custom spec from the fixture ("spec name key=value …") as engine.run reads it: its fields
// by name (an object's as object.field), validated as a spec's are; with an X, explicit.
problem problem_of_custom(const reference::sizes &fields) {
    field_values v;
    for (const auto &[key, text] : fields)
        v[key] = value_of(text);
    const auto kind = fields.count("kind") ? std::optional(fields.at("kind")) : std::nullopt;
    return problem_of(kind_named(kind), fields.count("X") == 1, v, true);
}

// The recorded sizes of one case against the engine's.
void check_sizes(const reference::sizes &recorded, const problem &p, double skip = 0) {
    const reference::sizes got = sizes_of(p, skip);
    for (const auto &[field, want] : recorded) {
        CAPTURE(field);
        REQUIRE(got.count(field) == 1);
        CHECK(got.at(field) == want);
    }
    CHECK(got.size() == recorded.size());
}

// The same trace, bit for bit: stage ids, heads, K/V heads, equations, axes, values, totals and
// every operand.
void require_same(const trace &got, const trace &want) {
    REQUIRE(got.stages.size() == want.stages.size());
    for (std::size_t i = 0; i < got.stages.size(); ++i) {
        const stage &a = got.stages[i], &b = want.stages[i];
        INFO("stage " << i << ": " << name_of(b.id) << " head " << b.head);
        CHECK(std::string(name_of(a.id)) == name_of(b.id));
        CHECK(a.head == b.head);
        CHECK(a.kv_head == b.kv_head);
        CHECK(a.eq.numeric == b.eq.numeric);
        CHECK(a.eq.symbolic == b.eq.symbolic);
        CHECK((a.ax.rows == b.ax.rows && a.ax.cols == b.ax.cols));
        check::tensor("values", a.values, b.values, 0);
        check::tensor("totals", a.totals, b.totals, 0);
        REQUIRE(a.operands.size() == b.operands.size());
        for (std::size_t j = 0; j < a.operands.size(); ++j) {
            INFO("operand " << b.operands[j].name << " head " << b.operands[j].head);
            CHECK(a.operands[j].name == b.operands[j].name);
            CHECK(a.operands[j].head == b.operands[j].head);
            check::tensor("operand", a.operands[j].values, b.operands[j].values, 0);
        }
    }
}

} // namespace

TEST_CASE("reference: every preset matches numpy stage by stage", "[reference]") {
    for (const preset_info &p : presets()) {
        SECTION(p.id) {
            comparer compare{p.id, {}};
            compare_trace(run_traced(problem_of_preset(p.id, true)), compare);
            // Every matrix numpy computed for this preset was compared with something.
            CHECK(compare.compared == fixture_keys(p.id));
        }
    }
}

TEST_CASE("reference: every custom spec matches numpy stage by stage", "[reference]") {
    REQUIRE(reference::custom_specs().size() == 25); // make-reference.py's CUSTOM
    for (const auto &[name, fields] : reference::custom_specs()) {
        SECTION(name) {
            comparer compare{name, {}};
            const trace t = run_traced(problem_of_custom(fields));
            compare_trace(t, compare);
            CHECK(compare.compared == fixture_keys(name));
        }
    }
}

TEST_CASE("reference: the fixture was made from these presets, with these sizes", "[reference]") {
    // Sizes are defined once, in the engine; numpy read them from it. A preset changed or added
    // since, or a default resolved differently in C++ than in numpy, shows up here.
    const auto &recorded = reference::presets();
    std::set<std::string> ids, recorded_ids;
    for (const preset_info &p : presets()) {
        CAPTURE(p.id);
        ids.insert(p.id);
        REQUIRE(recorded.count(p.id) == 1);
        check_sizes(recorded.at(p.id), problem_of_preset(p.id, false), p.spec.skip);
    }
    for (const auto &[id, sizes] : recorded)
        recorded_ids.insert(id);
    CHECK(ids == recorded_ids);
    // The custom specs: numpy's sizes are the engine's for the spec the fixture names.
    REQUIRE(reference::custom().size() == reference::custom_specs().size());
    for (const auto &[name, fields] : reference::custom_specs()) {
        CAPTURE(name);
        CHECK(ids.count(name) == 0);
        REQUIRE(reference::custom().count(name) == 1);
        check_sizes(reference::custom().at(name), problem_of_custom(fields));
        ids.insert(name);
    }
    for (const auto &[key, m] : reference::matrices()) {
        CAPTURE(key);
        CHECK((key.rfind("randn/", 0) == 0 || ids.count(key.substr(0, key.find(':'))) == 1));
    }
}

// numpy's pairwise reference (tests/fixtures/pairwise-reference.json): every feature alone and in
// pairs, in each kind, that the engine runs (scripts/combinations.mjs). Each case's sizes are the
// engine's, and every stage it records, and the weights' row totals, match numpy's to 1e-12 (the
// drawn inputs exactly, but a decode step's x_t that holds X + PE), with every matrix numpy wrote
// compared.
TEST_CASE("reference: every feature combination matches numpy stage by stage",
          "[reference][pairwise]") {
    const nlohmann::json all = reference::read_json("pairwise-reference.json");
    const std::map<std::string, matrix> matrices = reference::matrices_of(all.at("matrices"));
    std::size_t compared = 0;
    const auto compare = [&](const std::string &key, bool exact, const matrix &got) {
        INFO("fixture " << key);
        REQUIRE(matrices.count(key) == 1);
        check::tensor(key, got, matrices.at(key), exact ? 0.0 : 1e-12);
        ++compared;
    };
    REQUIRE(all.at("cases").size() >= 200);
    for (const auto &[name, c] : all.at("cases").items()) {
        CAPTURE(name);
        const problem p = problem_of_custom(reference::fields_of(c.at("spec")));
        check_sizes(reference::fields_of(c.at("sizes")), p);
        const trace t = run_traced(p);
        for (const stage &s : t.stages) {
            const bool encoded = !s.terms.empty() && s.id == stage_id::x_t; // X + PE: computed
            compare(key_of(name, name_of(s.id), s.head, s.step), is_drawn(s.id) && !encoded,
                    s.values);
            if (s.id == stage_id::weights)
                compare(key_of(name, "totals", s.head, s.step), false, s.totals);
        }
    }
    CHECK(compared == matrices.size());
}

TEST_CASE("reference: numKvHeads = numHeads is exactly multi-head attention", "[reference][gqa]") {
    const trace mha = run_traced(make_problem(preset("lesson-multi-head")));
    SECTION("lesson-multi-head with numKvHeads 4 given") {
        generated_spec spec = preset("lesson-multi-head");
        spec.num_kv_heads = 4;
        require_same(run_traced(make_problem(spec)), mha);
    }
    SECTION("the preset gqa-4-4") {
        require_same(run_traced(make_problem(preset("gqa-4-4"))), mha);
    }
}
