// libFuzzer target: fuzz input → a spec of any kind (fuzz_inputs.hpp) → make_problem, and when
// it validates and is small, run_traced, forward, explain_cell on a few cells and
// prune_each_head, each checked (fuzz_checks.hpp); then kv_cache_bytes on the bytes left.
// std::invalid_argument is an expected refusal (its message must name a field); any other
// exception, a sanitizer report or a failed check is a finding.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <typeinfo>

#include "attention/explain.hpp"
#include "attention/spec_reader.hpp"
#include "fuzz_checks.hpp"
#include "fuzz_inputs.hpp"

namespace {

using namespace attention;

// Above these the input is skipped, not run: drawing a million normals or tracing a
// quarter-million values takes long enough under ASan to slow the search more than it helps.
// Validation of sizes past the limits is untouched (refused before anything is drawn).
constexpr double max_draws = 1 << 20;
constexpr std::size_t max_traced = 1 << 18;

struct counts {
    unsigned long inputs = 0, refused = 0, skipped = 0, traced = 0;
} tally;

problem problem_of(const fuzz::any_spec &spec, bool *skipped) {
    if (const auto *g = std::get_if<generated_spec>(&spec)) {
        for (double v : {g->seed, g->seq_len, g->d_model, g->weight_scale})
            fuzz::check_js_number(v);
        *skipped = fuzz::draws_if_valid(*g) > max_draws;
        return *skipped ? problem{} : make_problem(*g, true);
    }
    if (const auto *v = std::get_if<value>(&spec)) // the trace budget is checked before drawing
        return problem_from(*v, true);
    return make_problem(std::get<explicit_spec>(spec));
}

// FUZZ_VERBOSE=1: what a validated spec became, to write a finding up as a test.
void describe(const problem &p) {
    const attention_config &c = p.config;
    std::fprintf(stderr,
                 "config: kind %d T %zu T_kv %zu D %zu H %zu H_kv %zu DK %zu DV %zu DFF %zu "
                 "valid %zu B_r %zu B_c %zu causal %d W_O %d scale %d weightScale %.17g pruned %zu"
                 " X[0][0] %.17g\n",
                 int(c.kind), c.seq_len, c.kv_len, c.d_model, c.num_heads, c.num_kv_heads, c.d_k,
                 c.d_v, c.d_ff, c.valid_keys.value_or(0), c.block_rows, c.block_cols, c.causal,
                 c.output_projection, c.scale_scores, c.weight_scale, c.pruned_heads.size(),
                 p.params.x.size() ? p.params.x(0, 0) : 0.0);
}

void run_spec(fuzz::byte_reader &in) {
    bool skipped = false;
    const problem p = problem_of(fuzz::read_spec(in), &skipped);
    if (!skipped && std::getenv("FUZZ_VERBOSE"))
        describe(p);
    if (skipped || trace_value_count(p.config) > max_traced) {
        ++tally.skipped;
        return;
    }
    const trace t = run_traced(p);
    fuzz::check_trace(t);
    fuzz::check_forward(p, t);
    fuzz::check_explanations(in, t);
    fuzz::check_pruning(p);
    ++tally.traced;
}

template <class Step> void refusal_or_success(Step step) {
    try {
        step();
    } catch (const std::invalid_argument &e) {
        fuzz::check_refusal(e.what());
        ++tally.refused;
        if (std::getenv("FUZZ_VERBOSE"))
            std::fprintf(stderr, "refused: %s\n", e.what());
    } catch (const std::exception &e) {
        fuzz::finding(std::string("unexpected ") + typeid(e).name() + ": " + e.what());
    } catch (...) {
        fuzz::finding("an exception that is not a std::exception");
    }
}

void print_tally() {
    std::fprintf(stderr,
                 "fuzz tally: %lu inputs, %lu refused, %lu skipped as too big, %lu traced\n",
                 tally.inputs, tally.refused, tally.skipped, tally.traced);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    if (std::getenv("FUZZ_TALLY"))
        std::atexit(print_tally);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    ++tally.inputs;
    fuzz::byte_reader in(data, size);
    refusal_or_success([&] { run_spec(in); });
    const kv_cache_query q = fuzz::read_kv_query(in);
    refusal_or_success([&] { fuzz::check_kv_bytes(q); });
    return 0;
}
