// A model { config, params } read from JS (each matrix by its name in the model,
// "layers[1].W_Q[0]"), for the training entry points and kind model's spec: the core checks
// the config's ranges and each matrix's shape and values.
#include <emscripten/val.h>

#include "attention/train_api.hpp"
#include "attention/validation.hpp"
#include "js_values.hpp"

namespace bindings {

using namespace attention;

// v's member `key`, refused by name when v is no object or lacks it.
val member(const val &v, const std::string &key, const std::string &path) {
    if (type_of(v) != "object")
        reject(path, "must be an object, got " + type_of(v));
    const val m = v[key];
    if (m.isUndefined())
        reject(path + "." + key, "is missing");
    return m;
}

namespace {

// v's element i, refused by name when v is no array or is shorter.
val element(const val &v, std::size_t i, const std::string &path) {
    if (!v.isArray())
        reject(path, "must be an array, got " + type_of(v));
    if (double(i) >= v["length"].as<double>())
        reject(path + "[" + std::to_string(i) + "]", "is missing");
    return v[i];
}

// The JS value a matrix's name points to inside params: "layers[1].W_Q[0]" is
// params.layers[1].W_Q[0].
val at_name(val v, const std::string &name, std::string path) {
    for (std::size_t i = 0; i < name.size();) {
        const std::size_t end = std::min(name.find('.', i), name.size());
        const std::string part = name.substr(i, end - i); // "layers[1]", "W_Q[0]", "W_E"
        const std::size_t bracket = part.find('[');
        const std::string key = part.substr(0, bracket);
        v = member(v, key, path), path += "." + key;
        if (bracket != std::string::npos) {
            const std::size_t index = std::stoul(part.substr(bracket + 1));
            v = element(v, index, path), path += "[" + std::to_string(index) + "]";
        }
        i = end + 1;
    }
    return v;
}

} // namespace

model_params params_from(const val &params, const model_config &c, const std::string &field) {
    require_object(params, field.c_str(), "an object { W_E, W_P, layers, W_U }");
    const model_params shapes = zeros_like(c);
    const std::vector<const matrix *> slots = matrices_of(shapes);
    const std::vector<std::string> names = matrix_names(c);
    std::vector<row_list> read_in;
    for (std::size_t i = 0; i < names.size(); ++i)
        read_in.push_back(rows_value(at_name(params, names[i], field), field + "." + names[i],
                                     rows(*slots[i]), cols(*slots[i])));
    return params_of(c, read_in, field);
}

model model_from(const val &m, const char *field) {
    static const std::vector<field_rule> parts{{"config", field_type::object},
                                               {"params", field_type::object}};
    require_object(m, field, "an object { config, params }");
    reject_unknown_fields(m, parts, "a model", field);
    const std::string config_field = std::string(field) + ".config";
    const model_config c =
        model_config_of(read(m["config"], config_field.c_str(),
                             "an object { vocab, seqLen, dModel, numLayers, numHeads, dK, dV }",
                             model_config_fields(), "a model's config", true),
                        config_field);
    return {c, params_from(member(m, "params", field), c, std::string(field) + ".params")};
}

} // namespace bindings
