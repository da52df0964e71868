// The core's answers as plain values for JS (value.hpp): a trace's config and what the run
// checked about itself, one cell's explanation, the presets (each spec as engine.run takes it),
// the real models, the stage table, pruning's changes. Named as the JS API names them.
#pragma once

#include <vector>

#include "attention/explain.hpp"
#include "attention/spec.hpp"
#include "attention/trace.hpp"
#include "attention/value.hpp"

namespace attention {

// { kind, seqLen, …, kv, checks the run made (maxDifference, …) }; seed NaN: none drawn.
value describe_config(const trace &t, double seed);

// A generated spec as the object engine.run takes.
value describe_spec(const generated_spec &s);

value describe(const cell_explanation &e);

// engine.presets(), engine.models(), engine.stages(): [{ id, operands: [{ names, perHead }] }].
value describe_presets();
value describe_models();

// The models that cache a latent (presets.hpp's latent_models): id, name, dModel, numHeads,
// dHead, dRope, dLatent, numLayers, contextLength.
value describe_latent_models();
value describe_stages();

// engine.pruneEach: [{ head, change }].
value describe_pruning(const std::vector<double> &changes);

} // namespace attention
