// The training entry points on their arguments as they crossed from JS: a model { config, params }
// (each matrix by its name in the model, "layers[1].W_Q[0]"), a batch, a training spec and a
// checkpoint read (reader.hpp), the core called, and its answer as a plain value.
#include "attention/answers.hpp"

#include "attention/model_work.hpp"
#include "attention/reader.hpp"
#include "attention/train_api.hpp"
#include "attention/validation.hpp"

namespace attention {

namespace {

// v's member `key`, refused by name when v is no object or lacks it.
const value &member_at(const value &v, const std::string &key, const std::string &path) {
    if (type_of(v) != "object")
        reject(path, "must be an object, got " + type_of(v));
    const value *m = member(v, key);
    if (!m)
        reject(path + "." + key, "is missing");
    return *m;
}

// v's element i, refused by name when v is no array or is shorter.
const value &element_at(const value &v, std::size_t i, const std::string &path, value &held) {
    if (type_of(v) != "array")
        reject(path, "must be an array, got " + type_of(v));
    if (const auto *long_one = std::get_if<long_array>(&v.v))
        reject(path, js_number(long_one->length) + " entries, more than the limit 65536");
    if (const auto *numbers = std::get_if<number_array>(&v.v)) {
        if (i >= numbers->items.size())
            reject(path + "[" + std::to_string(i) + "]", "is missing");
        return held = numbers->items[i];
    }
    const value_list &list = std::get<value_list>(v.v);
    if (i >= list.size())
        reject(path + "[" + std::to_string(i) + "]", "is missing");
    return list[i];
}

// The value a matrix's name points to inside params: "layers[1].W_Q[0]" is
// params.layers[1].W_Q[0].
const value &at_name(const value &params, const std::string &name, std::string path, value &held) {
    const value *v = &params;
    for (std::size_t i = 0; i < name.size();) {
        const std::size_t end = std::min(name.find('.', i), name.size());
        const std::string part = name.substr(i, end - i); // "layers[1]", "W_Q[0]", "W_E"
        const std::size_t bracket = part.find('[');
        const std::string key = part.substr(0, bracket);
        v = &member_at(*v, key, path), path += "." + key;
        if (bracket != std::string::npos) {
            const std::size_t index = std::stoul(part.substr(bracket + 1));
            v = &element_at(*v, index, path, held), path += "[" + std::to_string(index) + "]";
        }
        i = end + 1;
    }
    return *v;
}

// A whole number read from a member that may be absent (then "is missing").
std::size_t count_at(const value &v, const char *key, const std::string &path) {
    const value &n = member_at(v, key, path);
    if (type_of(n) != "number")
        reject(path + "." + key, "must be a number, got " + type_of(n));
    return whole_number(path + "." + key, std::get<double>(n.v), 0, 100000);
}

// An array of exactly `want` entries, each a `what` (layer, head) that config.<count> gives.
const value &counted(const value &v, std::size_t want, const std::string &path, const char *what,
                     const char *count) {
    if (type_of(v) != "array")
        reject(path, "must be an array, got " + type_of(v));
    const std::size_t n = checked_length(v, path, what, 65536);
    if (n != want)
        reject(path, std::to_string(n) + " " + what + (n == 1 ? "" : "s") + ", but config." +
                         count + " is " + std::to_string(want));
    return v;
}

// params holds the matrices its config names and nothing else: no other key, no layer or head
// more (the core reads what the config names; anything beside it would be dropped unread).
void require_only_the_model(const value &params, const model_config &c, const std::string &field) {
    static const std::vector<field_rule> parts{{"W_E", field_type::matrix},
                                               {"W_P", field_type::matrix},
                                               {"layers", field_type::object},
                                               {"W_U", field_type::matrix}};
    static const std::vector<field_rule> layer_parts{{"W_Q", field_type::matrices},
                                                     {"W_K", field_type::matrices},
                                                     {"W_V", field_type::matrices},
                                                     {"W_O", field_type::matrix}};
    reject_unknown_fields(params, parts, "a model's params", field);
    const std::string path = field + ".layers";
    const value &layers =
        counted(member_at(params, "layers", field), c.num_layers, path, "layer", "numLayers");
    for (std::size_t l = 0; l < c.num_layers; ++l) {
        value held;
        const std::string at = path + "[" + std::to_string(l) + "]";
        const value &layer = element_at(layers, l, path, held);
        require_object(layer, at, "an object { W_Q, W_K, W_V, W_O }");
        reject_unknown_fields(layer, layer_parts, "a layer", at);
        for (const char *w : {"W_Q", "W_K", "W_V"})
            counted(member_at(layer, w, at), c.num_heads, at + "." + w, "head", "numHeads");
    }
}

} // namespace

model_params params_from(const value &params, const model_config &c, const std::string &field) {
    require_object(params, field, "an object { W_E, W_P, layers, W_U }");
    require_only_the_model(params, c, field);
    const model_params shapes = zeros_like(c);
    const std::vector<const matrix *> slots = matrices_of(shapes);
    const std::vector<std::string> names = matrix_names(c);
    std::vector<row_list> read_in;
    for (std::size_t i = 0; i < names.size(); ++i) {
        value held;
        read_in.push_back(rows_value(at_name(params, names[i], field, held), field + "." + names[i],
                                     rows(*slots[i]), cols(*slots[i])));
    }
    return params_of(c, read_in, field);
}

model model_from(const value &m, const std::string &field) {
    static const std::vector<field_rule> parts{{"config", field_type::object},
                                               {"params", field_type::object}};
    require_object(m, field, "an object { config, params }");
    reject_unknown_fields(m, parts, "a model", field);
    const std::string config_field = field + ".config";
    static const value none = foreign_value{"undefined", "undefined"};
    const value *config = member(m, "config");
    const model_config c =
        model_config_of(read(config ? *config : none, config_field,
                             "an object { vocab, seqLen, dModel, numLayers, numHeads, dK, dV }",
                             model_config_fields(), "a model's config", true),
                        config_field);
    return {c, params_from(member_at(m, "params", field), c, field + ".params")};
}

field_value model_field(const value &v, const std::string &name) {
    return std::make_shared<const model>(model_from(v, name));
}

checkpoint checkpoint_from(const value &v, const std::string &field) {
    static const std::vector<field_rule> names{
        {"step", field_type::number},         {"model", field_type::object},
        {"optimizer", field_type::object},    {"loss", field_type::number},
        {"trainLoss", field_type::number},    {"headScores", field_type::object},
        {"uniformScores", field_type::object}};
    require_object(v, field, "an object { step, model, optimizer }");
    reject_unknown_fields(v, names, "a checkpoint", field);
    checkpoint c{};
    c.step = count_at(v, "step", field);
    c.trained = model_from(member_at(v, "model", field), field + ".model");
    const value &optimizer = member_at(v, "optimizer", field);
    const std::string opt = field + ".optimizer";
    static const std::vector<field_rule> moments{
        {"step", field_type::number}, {"m", field_type::object}, {"v", field_type::object}};
    require_object(optimizer, opt, "an object { step, m, v }");
    reject_unknown_fields(optimizer, moments, "an optimizer's state", opt);
    c.optimizer.step = count_at(optimizer, "step", opt);
    c.optimizer.m = params_from(member_at(optimizer, "m", opt), c.trained.config, opt + ".m");
    c.optimizer.v = params_from(member_at(optimizer, "v", opt), c.trained.config, opt + ".v");
    return c;
}

value init_model_answer(const value &args) {
    return describe(init_model_of(
        read(args, "config", "an object { vocab, seqLen, dModel, numLayers, numHeads, seed }",
             init_model_fields(), "initModel")));
}

value loss_and_gradients_answer(const value &m, const value &batch) {
    const model trained = model_from(m, "model");
    const token_batch b =
        batch_of(trained.config,
                 read(batch, "batch", "an object { tokens, mask? }", batch_fields(), "a batch"));
    const double n = double(b.tokens.size());
    check_work(3 * n * forward_work(trained.config), "tokens", // backward: about twice the forward
               js_number(n) + " sequences of this model, forward and backward,",
               "give fewer sequences");
    return describe(loss_and_gradients(trained, b));
}

value head_scores_answer(const value &m, const value &tokens) {
    const model trained = model_from(m, "model");
    const token_batch b =
        batch_of(trained.config, fields_from(value_record{{"tokens", tokens}}, batch_fields()));
    return describe(head_scores(trained, b.tokens));
}

value model_forward_answer(const value &m, const value &tokens) {
    const model trained = model_from(m, "model");
    return describe_forward(
        trained, model_inputs(trained.config,
                              fields_from(value_record{{"tokens", tokens}}, model_input_fields())));
}

value train_answer(const value &spec, const value &options) {
    const train_spec s = train_spec_of(read(spec, "spec", "an object { task, seed?, steps?, … }",
                                            train_spec_fields(), "a training spec"));
    const bool given = type_of(options) != "undefined" && type_of(options) != "null";
    std::optional<checkpoint> from;
    std::size_t steps = 0;
    if (given) {
        static const std::vector<field_rule> rules{{"from", field_type::number},
                                                   {"steps", field_type::number}};
        require_object(options, "options", "an object { from?, steps? }");
        reject_unknown_fields(options, rules, "train's options", "options");
        if (const value *checkpoint_given = member(options, "from"))
            from = checkpoint_from(*checkpoint_given, "from");
        steps = train_steps_of(fields_from(options, train_options_fields()));
    }
    value_list out;
    for (const checkpoint &c : train(s, from ? &*from : nullptr, steps))
        out.push_back(describe(c));
    return value_record{{"spec", describe(s)}, {"checkpoints", std::move(out)}};
}

value task_batch_answer(const value &spec, const value &options) {
    const train_spec s = train_spec_of(
        read(spec, "spec", "an object { task, seed?, … }", train_spec_fields(), "a training spec"));
    const bool given = type_of(options) != "undefined" && type_of(options) != "null";
    const field_values o = given ? read(options, "options", "an object { stream?, count? }",
                                        task_batch_fields(), "taskBatch's options")
                                 : field_values{};
    return describe(task_batch_of(s, o));
}

} // namespace attention
