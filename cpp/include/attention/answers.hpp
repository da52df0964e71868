// The engine's entry points as JavaScript calls them, on their arguments as they crossed from JS
// (value.hpp): each argument read (reader.hpp), the core run, and the answer handed back as the
// plain value the bindings mirror. run and forward answer with a trace and a matrix, which the
// bindings pack themselves (problem_from in fields.hpp reads their spec).
#pragma once

#include "attention/matrix.hpp"
#include "attention/value.hpp"

namespace attention {

// engine.explain: one cell { stage, head?, step?, row, col }, or a list of at most 65,536 of
// them explained from one run (a refused one named cells[i]).
value explain_answer(const value &spec, const value &cell);

// The same of a trace run() returned, as the loader holds it: the spec it was run from (read for
// its config), its layout (JSON.parse's) and its values. Nothing is run again.
value explain_trace_answer(const value &spec, const value &layout, const value &values,
                           const value &cell);

// engine.kvCacheBytes: { seqLen, dHead, numKvHeads, numLayers, bytesPerValue, batch?, window? }.
double kv_cache_bytes_answer(const value &query);

// engine.randn(seed, rows, cols), read as the fields { seed, rows, cols }.
matrix randn_answer(const value &seed, const value &rows, const value &cols);

// engine.pruneEach: [{ head, change }].
value prune_each_answer(const value &spec);

// engine.initModel, lossAndGradients, headScores, modelForward, train and taskBatch
// (train_reader.cpp).
value init_model_answer(const value &config);
value loss_and_gradients_answer(const value &model, const value &batch);
value head_scores_answer(const value &model, const value &tokens);
value model_forward_answer(const value &model, const value &tokens);
value train_answer(const value &spec, const value &options);
value task_batch_answer(const value &spec, const value &options);

} // namespace attention
