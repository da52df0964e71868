// Embind registration of the training entry points: a model, a batch, a training spec and a
// checkpoint read from JS (each matrix by its name in the model, "layers[1].W_Q[0]"), the core
// called, and its plain value handed back (see engine_bindings.cpp for the { value, error } form;
// model_from_js.cpp reads a model).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "attention/train_api.hpp"
#include "attention/validation.hpp"
#include "js_values.hpp"

using emscripten::val;
using namespace attention;
using namespace bindings;

namespace {

// A whole number read from a member that may be absent (then "is missing").
std::size_t count_at(const val &v, const char *key, const std::string &path) {
    const val n = member(v, key, path);
    if (type_of(n) != "number")
        reject(path + "." + key, "must be a number, got " + type_of(n));
    return whole_number(path + "." + key, n.as<double>(), 0, 100000);
}

// What train's `from` needs of a checkpoint engine.train returned: its step, model and Adam state
// (its loss and head scores may come along and are not read).
checkpoint checkpoint_from(const val &v, const std::string &field) {
    static const std::vector<field_rule> names{
        {"step", field_type::number},      {"model", field_type::object},
        {"optimizer", field_type::object}, {"loss", field_type::number},
        {"trainLoss", field_type::number}, {"headScores", field_type::object}};
    require_object(v, field.c_str(), "an object { step, model, optimizer }");
    reject_unknown_fields(v, names, "a checkpoint", field.c_str());
    checkpoint c{};
    c.step = count_at(v, "step", field);
    c.trained = model_from(member(v, "model", field), (field + ".model").c_str());
    const val optimizer = member(v, "optimizer", field);
    const std::string opt = field + ".optimizer";
    c.optimizer.step = count_at(optimizer, "step", opt);
    c.optimizer.m = params_from(member(optimizer, "m", opt), c.trained.config, opt + ".m");
    c.optimizer.v = params_from(member(optimizer, "v", opt), c.trained.config, opt + ".v");
    return c;
}

val init_model_js(val args) {
    return result_of([&] {
        return js_of(describe(init_model_of(
            read(args, "config", "an object { vocab, seqLen, dModel, numLayers, numHeads, seed }",
                 init_model_fields(), "initModel"))));
    });
}

val loss_and_gradients_js(val m, val batch) {
    return result_of([&] {
        const model trained = model_from(m, "model");
        const token_batch b =
            batch_of(trained.config, read(batch, "batch", "an object { tokens, mask? }",
                                          batch_fields(), "a batch"));
        return js_of(describe(loss_and_gradients(trained, b)));
    });
}

val head_scores_js(val m, val tokens) {
    return result_of([&] {
        const model trained = model_from(m, "model");
        val args = val::object(); // the tokens, read as the field they are
        args.set("tokens", tokens);
        const token_batch b = batch_of(trained.config, fields_from(args, batch_fields()));
        return js_of(describe(head_scores(trained, b.tokens)));
    });
}

val model_forward_js(val m, val tokens) {
    return result_of([&] {
        const model trained = model_from(m, "model");
        val args = val::object(); // the tokens, read as the field they are
        args.set("tokens", tokens);
        return js_of(describe_forward(
            trained, model_inputs(trained.config, fields_from(args, model_input_fields()))));
    });
}

val train_js(val spec, val options) {
    return result_of([&] {
        const train_spec s =
            train_spec_of(read(spec, "spec", "an object { task, seed?, steps?, … }",
                               train_spec_fields(), "a training spec"));
        const bool given = !options.isUndefined() && !options.isNull();
        std::optional<checkpoint> from;
        std::size_t steps = 0;
        if (given) {
            static const std::vector<field_rule> rules{{"from", field_type::number},
                                                       {"steps", field_type::number}};
            require_object(options, "options", "an object { from?, steps? }");
            reject_unknown_fields(options, rules, "train's options", "options");
            if (!options["from"].isUndefined())
                from = checkpoint_from(options["from"], "from");
            steps = train_steps_of(fields_from(options, train_options_fields()));
        }
        value_list out;
        for (const checkpoint &c : train(s, from ? &*from : nullptr, steps))
            out.push_back(describe(c));
        return js_of(value_record{{"spec", describe(s)}, {"checkpoints", std::move(out)}});
    });
}

val task_batch_js(val spec, val options) {
    return result_of([&] {
        const train_spec s = train_spec_of(read(spec, "spec", "an object { task, seed?, … }",
                                                train_spec_fields(), "a training spec"));
        const bool given = !options.isUndefined() && !options.isNull();
        const field_values o = given ? read(options, "options", "an object { stream?, count? }",
                                            task_batch_fields(), "taskBatch's options")
                                     : field_values{};
        return js_of(describe(task_batch_of(s, o)));
    });
}

} // namespace

EMSCRIPTEN_BINDINGS(attention_training) {
    using emscripten::function;
    function("initModel", &init_model_js);
    function("lossAndGradients", &loss_and_gradients_js);
    function("headScores", &head_scores_js);
    function("modelForward", &model_forward_js);
    function("train", &train_js);
    function("taskBatch", &task_batch_js);
}
