// Hand-computed answers for the matrix operations, with the arithmetic in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "attention/attention.hpp"
#include "attention/mask.hpp"
#include "attention/ops.hpp"
#include "check.hpp"
#include "oracle.hpp"

using namespace attention;
using check::inf;
using check::m;
using oracle::softmax_rows;
using oracle::transpose;

TEST_CASE("ops: matmul of two 2x2 matrices", "[ops][known]") {
    // [1 2] [5 6]   [1·5+2·7  1·6+2·8]   [19 22]
    // [3 4] [7 8] = [3·5+4·7  3·6+4·8] = [43 50]
    check::tensor("matmul", matmul(m({{1, 2}, {3, 4}}), m({{5, 6}, {7, 8}})),
                  m({{19, 22}, {43, 50}}), 0);
}

TEST_CASE("ops: matmul of non-square shapes and a shape mismatch", "[ops][known]") {
    SECTION("(1, 3) @ (3, 2) → (1, 2)") {
        // [1 2 3] · [[1 0] [0 1] [1 1]] = [1+3, 2+3] = [4 5]
        check::tensor("matmul", matmul(m({{1, 2, 3}}), m({{1, 0}, {0, 1}, {1, 1}})), m({{4, 5}}),
                      0);
    }
    SECTION("(2, 3) @ (2, 2) throws naming both shapes") {
        CHECK_THROWS_AS(matmul(m({{1, 2, 3}, {4, 5, 6}}), m({{1, 0}, {0, 1}})),
                        std::invalid_argument);
        CHECK_THROWS_WITH(matmul(m({{1, 2, 3}, {4, 5, 6}}), m({{1, 0}, {0, 1}})),
                          Catch::Contains("(2, 3)") && Catch::Contains("(2, 2)"));
    }
}

TEST_CASE("ops: matmul_bt multiplies by the transpose without forming it", "[ops][known]") {
    // A·Bᵀ with Bᵀ = [[5 7] [6 8]]:
    // [1·5+2·6  1·7+2·8]   [17 23]
    // [3·5+4·6  3·7+4·8] = [39 53]
    check::tensor("matmul_bt", matmul_bt(m({{1, 2}, {3, 4}}), m({{5, 6}, {7, 8}})),
                  m({{17, 23}, {39, 53}}), 0);
    // (1, 2)·(3, 2)ᵀ → (1, 3): [1 1]·rows [1 2], [3 4], [5 6] = [3 7 11]
    check::tensor("matmul_bt (1,2)x(3,2)", matmul_bt(m({{1, 1}}), m({{1, 2}, {3, 4}, {5, 6}})),
                  m({{3, 7, 11}}), 0);
    CHECK_THROWS_AS(matmul_bt(m({{1, 2}}), m({{1, 2, 3}})), std::invalid_argument);
}

TEST_CASE("ops: transpose swaps rows and columns", "[ops][known]") {
    check::tensor("transpose 2x2", transpose(m({{1, 2}, {3, 4}})), m({{1, 3}, {2, 4}}), 0);
    check::tensor("transpose 2x3", transpose(m({{1, 2, 3}, {4, 5, 6}})),
                  m({{1, 4}, {2, 5}, {3, 6}}), 0);
}

TEST_CASE("ops: softmax_rows of known rows", "[ops][known]") {
    // Row [0, ln 3]: exp → [1, 3], sum 4 → [1/4, 3/4].
    // Row [0, 0]: exp → [1, 1], sum 2 → [1/2, 1/2].
    const matrix w = softmax_rows(m({{0, std::log(3.0)}, {0, 0}}));
    check::tensor("softmax", w, m({{0.25, 0.75}, {0.5, 0.5}}), 1e-15);
    // Row [-inf, 2]: exp → [0, e²]; the masked cell gets exactly 0 and the other exactly 1.
    check::tensor("softmax with -inf", softmax_rows(m({{-inf, 2}})), m({{0, 1}}), 0);
}

namespace {

attention_config mask_config(std::size_t t, std::size_t t_kv, bool causal,
                             std::optional<std::size_t> valid_keys) {
    attention_config c;
    c.seq_len = t, c.kv_len = t_kv, c.causal = causal, c.valid_keys = valid_keys;
    return c;
}

// Every 0 of the mask is +0: adding it must leave a logit's sign alone.
std::size_t negative_zeros(const matrix &mask) {
    std::size_t n = 0;
    for (double v : mask)
        n += v == 0.0 && std::signbit(v);
    return n;
}

} // namespace

TEST_CASE("attention_mask: causal hides j > i", "[ops][mask][known]") {
    // [0 −∞ −∞]
    // [0  0 −∞]
    // [0  0  0]
    const matrix mask = attention_mask(mask_config(3, 3, true, std::nullopt));
    check::tensor("causal", mask, m({{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}}), 0);
    CHECK(negative_zeros(mask) == 0);
}

TEST_CASE("attention_mask: padding hides keys j >= validKeys in every row", "[ops][mask][known]") {
    // 2 queries, 4 keys of which the first 3 are real: the last column is hidden.
    const matrix mask = attention_mask(mask_config(2, 4, false, 3));
    check::tensor("padding", mask, m({{0, 0, 0, -inf}, {0, 0, 0, -inf}}), 0);
    CHECK(negative_zeros(mask) == 0);
    check::tensor("validKeys = T_kv hides nothing", attention_mask(mask_config(2, 3, false, 3)),
                  m({{0, 0, 0}, {0, 0, 0}}), 0);
}

TEST_CASE("attention_mask: causal and padding together hide either", "[ops][mask][known]") {
    // causal (j > i) or padding (j ≥ 2):
    // row 0: j = 1, 2 hidden; row 1: j = 2 hidden; row 2: j = 2 hidden by padding only.
    const matrix mask = attention_mask(mask_config(3, 3, true, 2));
    check::tensor("both", mask, m({{0, -inf, -inf}, {0, 0, -inf}, {0, 0, -inf}}), 0);
    CHECK(negative_zeros(mask) == 0);
}

TEST_CASE("attention_mask: without causal or padding it is all zeros", "[ops][mask][known]") {
    const matrix mask = attention_mask(mask_config(2, 3, false, std::nullopt));
    check::tensor("none", mask, m({{0, 0, 0}, {0, 0, 0}}), 0);
    CHECK(negative_zeros(mask) == 0);
}

TEST_CASE("ops: layer_norm uses the population std plus eps", "[ops][known]") {
    const double eps = 1e-6;
    // Row [1, 3]: mean 2, population std √(((1−2)² + (3−2)²) / 2) = 1 (the sample std would be √2).
    // (x − mean) / (std + eps) = [−1, 1] / (1 + 1e-6).
    // γ = [2, 0.5], β = [1, −1]: [2·(−1)/(1+eps) + 1, 0.5·1/(1+eps) − 1].
    // Row [5, 5]: std 0, so (x − mean) / (0 + eps) = 0 and the row becomes β = [1, −1].
    const vector gamma = {2.0, 0.5}, beta = {1.0, -1.0};
    const matrix y = layer_norm(m({{1, 3}, {5, 5}}), gamma, beta);
    check::tensor("layer_norm", y, m({{-2 / (1 + eps) + 1, 0.5 / (1 + eps) - 1}, {1, -1}}), 1e-15);
    SECTION("the default eps is 1e-6") {
        const vector ones = {1.0, 1.0}, zeros = {0.0, 0.0};
        check::tensor("layer_norm eps", layer_norm(m({{1, 3}}), ones, zeros),
                      m({{-1 / (1 + eps), 1 / (1 + eps)}}), 0);
    }
    SECTION("gamma of the wrong length throws") {
        const vector three = {1.0, 1.0, 1.0};
        CHECK_THROWS_AS(layer_norm(m({{1, 3}}), three, three), std::invalid_argument);
    }
}

TEST_CASE("ops: relu clamps negatives to zero", "[ops][known]") {
    const matrix y = relu(m({{-1, 0}, {2, -0.5}, {-0.0, 1e-300}}));
    check::tensor("relu", y, m({{0, 0}, {2, 0}, {0, 1e-300}}), 0);
    CHECK(negative_zeros(y) == 0); // clamped cells are +0, even from −0
}

TEST_CASE("ops: concat_columns joins side by side", "[ops][known]") {
    // [1]   [3 4]    [1 3 4]
    // [2] , [5 6] →  [2 5 6]
    check::tensor("concat", concat_columns({m({{1}, {2}}), m({{3, 4}, {5, 6}})}),
                  m({{1, 3, 4}, {2, 5, 6}}), 0);
    CHECK_THROWS_AS(concat_columns({}), std::invalid_argument);
    CHECK_THROWS_AS(concat_columns({m({{1}}), m({{1}, {2}})}), std::invalid_argument);
}

TEST_CASE("ops: relative_change in the Frobenius norm, and an all-zero original", "[ops][known]") {
    // ‖(3, 4) − (0, 0)‖ / ‖(0, 0)‖ is undefined: no change is 0, any change is +∞.
    CHECK(relative_change(m({{0, 0}}), m({{0, 0}})) == 0.0);
    CHECK(relative_change(m({{3, 4}}), m({{0, 0}})) == check::inf);
    // ‖(3, 4) − (0, 0)‖ / ‖(3, 4)‖ = 5 / 5 and ‖(1, 1) − (1, 2)‖ / ‖(1, 2)‖ = 1 / √5.
    CHECK(relative_change(m({{0, 0}}), m({{3, 4}})) == 1.0);
    CHECK(relative_change(m({{1, 1}}), m({{1, 2}})) == Approx(1.0 / std::sqrt(5.0)).epsilon(1e-15));
    CHECK_THROWS_AS(relative_change(m({{1, 2}}), m({{1}, {2}})), std::invalid_argument);
}
