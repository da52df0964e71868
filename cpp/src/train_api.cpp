#include "attention/train_api.hpp"

#include <cmath>
#include <stdexcept>

#include "attention/field_ranges.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

using t = field_type;
using L = model_limits;

std::string at(const std::string &field, const char *name) {
    return field.empty() ? name : field + "." + name;
}

std::size_t size_field(const field_values &v, const std::string &field, const char *name,
                       double fallback, std::size_t lo, std::size_t hi) {
    return whole_number(at(field, name), number_or(v, name, fallback), lo, hi);
}

} // namespace

const std::vector<field_rule> &init_model_fields() {
    static const std::vector<field_rule> f{{"vocab", t::number, true},
                                           {"seqLen", t::number, true},
                                           {"dModel", t::number, true},
                                           {"numLayers", t::number, true},
                                           {"numHeads", t::number, true},
                                           {"dK", t::number},
                                           {"dV", t::number},
                                           {"seed", t::number}};
    return f;
}

const std::vector<field_rule> &model_config_fields() {
    static const std::vector<field_rule> f{
        {"vocab", t::number, true},     {"seqLen", t::number, true},   {"dModel", t::number, true},
        {"numLayers", t::number, true}, {"numHeads", t::number, true}, {"dK", t::number, true},
        {"dV", t::number, true}};
    return f;
}

const std::vector<field_rule> &train_spec_fields() {
    static const std::vector<field_rule> f{
        {"task", t::text, true},     {"seed", t::number},           {"vocab", t::number},
        {"seqLen", t::number},       {"dModel", t::number},         {"numLayers", t::number},
        {"numHeads", t::number},     {"batch", t::number},          {"steps", t::number},
        {"learningRate", t::number}, {"checkpointEvery", t::number}};
    return f;
}

const std::vector<field_rule> &train_options_fields() {
    static const std::vector<field_rule> f{{"steps", t::number}};
    return f;
}

const std::vector<field_rule> &batch_fields() {
    static const std::vector<field_rule> f{
        {"tokens", t::matrix, true, 0, L::max_batch, L::max_seq_len + 1},
        {"mask", t::matrix, false, 0, L::max_batch, L::max_seq_len}};
    return f;
}

const std::vector<field_rule> &task_batch_fields() {
    static const std::vector<field_rule> f{{"stream", t::number}, {"count", t::number}};
    return f;
}

const std::vector<field_rule> &model_input_fields() {
    static const std::vector<field_rule> f{{"tokens", t::numbers, true, L::max_seq_len}};
    return f;
}

std::vector<std::size_t> model_inputs(const model_config &c, const field_values &v) {
    const std::vector<double> &given = std::get<std::vector<double>>(v.at("tokens"));
    if (given.empty() || given.size() > c.seq_len)
        reject("tokens", std::to_string(given.size()) +
                             " tokens; the model reads 1 to seqLen = " + std::to_string(c.seq_len));
    std::vector<std::size_t> out;
    for (std::size_t t = 0; t < given.size(); ++t) {
        const std::string field = "tokens[" + std::to_string(t) + "]";
        out.push_back(whole_number(field, given[t], 0, 4294967295u));
        if (out.back() >= c.vocab)
            reject(field, std::to_string(out.back()) + " is outside the vocabulary [0, " +
                              std::to_string(c.vocab - 1) + "]");
    }
    return out;
}

model_config model_config_of(const field_values &v, const std::string &field) {
    model_config c;
    c.vocab = size_field(v, field, "vocab", NAN, 2, L::max_vocab);
    c.seq_len = size_field(v, field, "seqLen", NAN, 2, L::max_seq_len);
    c.d_model = size_field(v, field, "dModel", NAN, 1, L::max_d_model);
    c.num_layers = size_field(v, field, "numLayers", NAN, 1, L::max_layers);
    c.num_heads = size_field(v, field, "numHeads", NAN, 1, L::max_heads);
    const bool given = v.count("dK") && v.count("dV");
    if (!given && c.d_model % c.num_heads != 0)
        reject(at(field, "numHeads"), std::to_string(c.num_heads) + " does not divide dModel " +
                                          std::to_string(c.d_model) +
                                          "; give dK and dV, or a head count that divides it");
    c.d_k = size_field(v, field, "dK", double(c.d_model / c.num_heads), 1, L::max_d_model);
    c.d_v = size_field(v, field, "dV", double(c.d_model / c.num_heads), 1, L::max_d_model);
    return c;
}

model init_model_of(const field_values &v) {
    const model_config c = model_config_of(v, "");
    return init_model(c, std::uint32_t(in_range("seed", number_or(v, "seed", 0))));
}

train_spec train_spec_of(const field_values &v) {
    train_spec s = default_train_spec(task_named(std::get<std::string>(v.at("task"))));
    model_config &c = s.config;
    s.seed = std::uint32_t(in_range("seed", number_or(v, "seed", 0)));
    c.vocab = size_field(v, "", "vocab", double(c.vocab), 2, L::max_vocab);
    c.seq_len = size_field(v, "", "seqLen", double(c.seq_len), 2, L::max_seq_len);
    c.d_model = size_field(v, "", "dModel", double(c.d_model), 1, L::max_d_model);
    c.num_layers = size_field(v, "", "numLayers", double(c.num_layers), 1, L::max_layers);
    c.num_heads = size_field(v, "", "numHeads", double(c.num_heads), 1, L::max_heads);
    if (c.d_model % c.num_heads != 0)
        reject("numHeads", std::to_string(c.num_heads) + " does not divide dModel " +
                               std::to_string(c.d_model) +
                               " (each head is dModel / numHeads wide)");
    c.d_k = c.d_v = c.d_model / c.num_heads;
    s.batch = size_field(v, "", "batch", double(s.batch), 1, L::max_batch);
    s.steps = size_field(v, "", "steps", double(s.steps), 1, 100000);
    s.checkpoint_every =
        size_field(v, "", "checkpointEvery", double(s.checkpoint_every), 1, 100000);
    s.learning_rate = number_or(v, "learningRate", s.learning_rate);
    if (!std::isfinite(s.learning_rate) || s.learning_rate <= 0 || s.learning_rate > 1)
        reject("learningRate", js_number(s.learning_rate) + " is not a finite number in (0, 1]");
    validate_task(s.task, c);
    return s;
}

std::size_t train_steps_of(const field_values &options) {
    return options.count("steps") ? whole_number("steps", number_or(options, "steps", 0), 1, 100000)
                                  : 0;
}

model_params params_of(const model_config &c, const std::vector<row_list> &matrices,
                       const std::string &field) {
    model_params p = zeros_like(c);
    const std::vector<matrix *> slots = matrices_of(p);
    const std::vector<std::string> names = matrix_names(c);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const std::string name = field + "." + names[i];
        const matrix m = checked_matrix(name, matrices.at(i), rows(*slots[i]), cols(*slots[i]));
        require_shape(name, m, rows(*slots[i]), cols(*slots[i]), "by the model's config");
        *slots[i] = m;
    }
    return p;
}

model model_of(const model_config &c, const std::vector<row_list> &matrices,
               const std::string &field) {
    return {c, params_of(c, matrices, field + ".params")};
}

token_batch batch_of(const model_config &c, const field_values &v) {
    const row_list &rows_in = std::get<row_list>(v.at("tokens"));
    token_batch b;
    for (std::size_t s = 0; s < rows_in.size(); ++s) {
        std::vector<std::size_t> row;
        for (std::size_t t = 0; t < rows_in[s].size(); ++t)
            row.push_back(
                whole_number("tokens[" + std::to_string(s) + "][" + std::to_string(t) + "]",
                             rows_in[s][t], 0, 4294967295u)); // the vocabulary: validate_batch
        b.tokens.push_back(std::move(row));
    }
    b.mask = v.count("mask") ? checked_matrix("mask", std::get<row_list>(v.at("mask")),
                                              L::max_batch, L::max_seq_len)
                             : matrix({b.tokens.size(), c.seq_len}, 1.0);
    validate_batch(c, b);
    return b;
}

token_batch task_batch_of(const train_spec &s, const field_values &options) {
    const std::size_t stream = whole_number("stream", number_or(options, "stream", 0), 0, 100000);
    const std::size_t count = whole_number(
        "count", number_or(options, "count", double(held_out_sequences)), 1, L::max_batch);
    return task_batch(s, stream, count);
}

} // namespace attention
