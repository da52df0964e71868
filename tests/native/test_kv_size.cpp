// The size of a KV cache, 2 · seqLen · dHead · numKvHeads · numLayers · bytesPerValue · batch:
// the lesson's five models at their full context in fp16, exact up to 2⁵³, and every field's
// bad values refused by name.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "attention/kv_size.hpp"
#include "attention/presets.hpp"

using namespace attention;
using Catch::Contains;

namespace {

// fp16 (2 bytes a value), batch 1.
kv_cache_query fp16(double seq_len, double d_head, double kv_heads, double layers) {
    kv_cache_query q;
    q.seq_len = seq_len, q.d_head = d_head, q.num_kv_heads = kv_heads, q.num_layers = layers;
    q.bytes_per_value = 2;
    return q;
}

constexpr std::uint64_t two_53 = std::uint64_t(1) << 53;

} // namespace

TEST_CASE("kv size: the lesson's five models at full context in fp16, by hand",
          "[kv_size][known]") {
    // 2 (K and V) · context · d_head · KV heads · layers · 2 bytes:
    // GPT-2 124M:  2 · 1024 · 64 · 12 · 12 · 2 =     37,748,736 (36 MiB)
    // GPT-2 1.5B:  2 · 1024 · 64 · 25 · 48 · 2 =    314,572,800 (300 MiB)
    // GPT-3 175B:  2 · 2048 · 128 · 96 · 96 · 2 = 9,663,676,416 (9 GiB)
    // LLaMA 3 8B:  2 · 8192 · 128 · 8 · 32 · 2 =  1,073,741,824 (1 GiB: 8 K/V heads, not 32)
    // LLaMA 3 70B: 2 · 8192 · 128 · 8 · 80 · 2 =  2,684,354,560 (2.5 GiB)
    CHECK(kv_cache_bytes(fp16(1024, 64, 12, 12)) == 37748736ull);
    CHECK(kv_cache_bytes(fp16(1024, 64, 25, 48)) == 314572800ull);
    CHECK(kv_cache_bytes(fp16(2048, 128, 96, 96)) == 9663676416ull);
    CHECK(kv_cache_bytes(fp16(8192, 128, 8, 32)) == 1073741824ull);
    CHECK(kv_cache_bytes(fp16(8192, 128, 8, 80)) == 2684354560ull);
    // Mistral 7B's window of 4096: 2 · 4096 · 128 · 8 · 32 · 2 = 536,870,912 (512 MiB) at 8192.
    kv_cache_query mistral = fp16(8192, 128, 8, 32);
    mistral.window = 4096;
    CHECK(kv_cache_bytes(mistral) == 536870912ull);
    mistral.seq_len = 1000; // shorter than the window: every token
    CHECK(kv_cache_bytes(mistral) == 1000ull * 2 * 128 * 8 * 32 * 2);
    // The same from the engine's table of models, whose sizes these are.
    const std::uint64_t want[] = {37748736ull,   314572800ull,  9663676416ull,
                                  1073741824ull, 2684354560ull, 536870912ull};
    REQUIRE(models().size() == std::size(want));
    for (std::size_t i = 0; i < std::size(want); ++i) {
        const model_info &m = models()[i];
        CAPTURE(m.name);
        kv_cache_query q =
            fp16(double(m.context), double(m.d_k), double(m.num_kv_heads), double(m.num_layers));
        if (m.window)
            q.window = double(m.window);
        CHECK(kv_cache_bytes(q) == want[i]);
    }
}

TEST_CASE("kv size: an MLA cache holds d_c + d_r per token and layer, by hand", "[kv_size]") {
    // DeepSeek-V3 (config.json: kv_lora_rank 512, qk_rope_head_dim 64, 61 layers), fp16, 8192
    // tokens: 8192 · 576 · 61 · 2 = 575,668,224 bytes, where MHA's 2 · 128 heads · 128 would hold
    // 2 · 8192 · 128 · 128 · 61 · 2 = 32,749,125,632.
    const latent_model_info &v3 = latent_models().back();
    CHECK(v3.id == "deepseek-v3");
    kv_cache_query q = fp16(8192, 0, 0, double(v3.num_layers));
    q.latent_dims = double(v3.d_latent + v3.d_rope);
    CHECK(kv_cache_bytes(q) == 575668224ull);
    CHECK(kv_cache_bytes(fp16(8192, double(v3.d_head), double(v3.num_heads), double(v3.num_layers))) ==
          32749125632ull);
    const latent_model_info &lite = latent_models().front(); // 27 layers, the same latent
    q.num_layers = double(lite.num_layers);
    CHECK(kv_cache_bytes(q) == 8192ull * 576 * 27 * 2);
    q.latent_dims = 0.5;
    CHECK_THROWS_WITH(kv_cache_bytes(q), "latentDims: 0.5 is not a whole number");
}

TEST_CASE("kv size: batch and bytes per value scale it, d_k and d_v may differ", "[kv_size]") {
    kv_cache_query q = fp16(1024, 64, 12, 12);
    q.batch = 8;
    CHECK(kv_cache_bytes(q) == 8 * 37748736ull);
    q.batch = 1, q.bytes_per_value = 4; // fp32
    CHECK(kv_cache_bytes(q) == 2 * 37748736ull);
    q.bytes_per_value = 1; // int8
    CHECK(kv_cache_bytes(q) == 37748736ull / 2);
    // seq · (d_k + d_v) · kv_heads · layers · bytes · batch: 5 · (4 + 3) · 2 · 1 · 8 · 1 = 560.
    CHECK(kv_cache_bytes(5, 4, 3, 2, 1, 8, 1) == 560);
    CHECK(kv_cache_bytes(1, 1, 1, 1, 1, 1, 1) == 2);
}

TEST_CASE("kv size: exactly 2^53 is accepted, anything over is refused", "[kv_size]") {
    // 2 · 2²⁶ · 2¹⁰ · 2⁸ · 2⁴ · 2² · 2² = 2⁵³.
    kv_cache_query edge;
    edge.seq_len = 67108864, edge.d_head = 1024, edge.num_kv_heads = 256, edge.num_layers = 16;
    edge.bytes_per_value = 4, edge.batch = 4;
    CHECK(kv_cache_bytes(edge) == two_53);
    const char *message =
        "kvCacheBytes: the product exceeds 2^53 = 9007199254740992 bytes; use smaller sizes";
    kv_cache_query twice = edge;
    twice.batch = 8; // 2⁵⁴
    CHECK_THROWS_WITH(kv_cache_bytes(twice), message);
    // 2 · (2³² − 1) · 2²⁰ = 2⁵³ − 2²¹ fits; with dHead 2²⁰ + 1 it is 2⁵³ + 2³³ − 2²¹ − 2.
    kv_cache_query below = fp16(4294967295.0, 1048576, 1, 1);
    below.bytes_per_value = 1;
    CHECK(kv_cache_bytes(below) == two_53 - (1u << 21));
    kv_cache_query above = below;
    above.d_head = 1048577;
    CHECK_THROWS_AS(kv_cache_bytes(above), std::invalid_argument);
    CHECK_THROWS_WITH(kv_cache_bytes(above), message);
    // Each field alone at its largest: 2 · (2³² − 1) · 2 bytes overflows nothing.
    CHECK(kv_cache_bytes(fp16(4294967295.0, 1, 1, 1)) == 4 * 4294967295ull);
}

TEST_CASE("kv size: every field's bad values are refused by name", "[kv_size]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    struct field {
        const char *name;
        double kv_cache_query::*member;
        const char *range;
    };
    const field fields[] = {{"seqLen", &kv_cache_query::seq_len, "[1, 4294967295]"},
                            {"dHead", &kv_cache_query::d_head, "[1, 4294967295]"},
                            {"numKvHeads", &kv_cache_query::num_kv_heads, "[1, 4294967295]"},
                            {"numLayers", &kv_cache_query::num_layers, "[1, 4294967295]"},
                            {"bytesPerValue", &kv_cache_query::bytes_per_value, "[1, 16]"},
                            {"batch", &kv_cache_query::batch, "[1, 4294967295]"}};
    for (const field &f : fields) {
        CAPTURE(f.name);
        const std::string name = f.name;
        const std::string out_of_range = std::string(" is out of range ") + f.range;
        const std::pair<double, std::string> bad[] = {
            {0, name + ": 0" + out_of_range},
            {-1, name + ": -1" + out_of_range},
            {2.5, name + ": 2.5 is not a whole number"},
            {nan, name + ": NaN is not a finite number"},
            {inf, name + ": Infinity is not a finite number"},
            {-inf, name + ": -Infinity is not a finite number"},
            {4294967296.0, name + ": 4294967296" + out_of_range},
            {1e300, name + ": 1e+300" + out_of_range}};
        for (const auto &[value, message] : bad) {
            CAPTURE(value);
            kv_cache_query q = fp16(1024, 64, 12, 12);
            q.*f.member = value;
            CHECK_THROWS_AS(kv_cache_bytes(q), std::invalid_argument);
            CHECK_THROWS_WITH(kv_cache_bytes(q), message);
        }
    }
    kv_cache_query q = fp16(1024, 64, 12, 12);
    q.bytes_per_value = 17;
    CHECK_THROWS_WITH(kv_cache_bytes(q), "bytesPerValue: 17 is out of range [1, 16]");
    q.bytes_per_value = 16;
    CHECK(kv_cache_bytes(q) == 8 * 37748736ull);
}
