// The opt-in bf16-activations kernels (LinearVariant::rounds_x_to_bf16):
// against the double oracle over bf16-rounded weights AND bf16-rounded x
// (the test's own rounding), odd shapes, 1..64 rows, strides, column ranges;
// and the choice: never by choose_linear_variant(), only when asked, with a
// stated fallback where the CPU lacks AVX512-BF16.

#include <doctest/doctest.h>

#include <cmath>
#include <utility>

#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

std::vector<const LinearVariant*> bf16_activation_variants() {
  std::vector<const LinearVariant*> found;
  for (const LinearVariant& v : linear_variants()) {
    if (v.rounds_x_to_bf16 && linear_variant_runnable(v)) found.push_back(&v);
  }
  return found;
}

// The problem with x rounded to bf16 by the oracle: the expected result is
// then the exact one over the values the kernel multiplies.
LinearProblem rounded_x_problem(size_t m, size_t n, size_t k, bool with_bias, uint32_t seed) {
  LinearProblem p = make_problem(m, n, k, WeightType::kBF16, with_bias, seed);
  for (float& v : p.x) v = oracle_bf16_round(v);
  recompute_float_oracle(p);
  return p;
}

const std::pair<size_t, size_t> kShapes[] = {
    {1, 1},     {3, 17},    {17, 3},    {255, 257}, {257, 255},
    {1000, 64}, {64, 1000}, {4097, 17}, {383, 129},
};

}  // namespace

TEST_SUITE("linear") {
  TEST_CASE("bf16-activation kernels equal the oracle over bf16-rounded x and W") {
    const auto variants = bf16_activation_variants();
    if (variants.empty()) {
      MESSAGE("no bf16-activation kernel runs on this CPU (needs avx512_bf16): nothing to check");
    }
    for (const LinearVariant* v : variants) {
      for (const auto& [k, n] : kShapes) {
        for (size_t m : {1, 2, 5, 6, 7, 13, 64}) {
          if (linear_quick_mode() && m * n * k > 2000000) continue;
          for (bool with_bias : {false, true}) {
            CAPTURE(variant_label(*v));
            CAPTURE(m);
            CAPTURE(n);
            CAPTURE(k);
            CAPTURE(with_bias);
            const LinearProblem p =
                rounded_x_problem(m, n, k, with_bias, static_cast<uint32_t>(m * 7 + n * 3 + k));
            Expected<PackedWeights> w = pack_weights(p.w.data(), n, k, *v);
            REQUIRE_MESSAGE(w.is_ok(), w.status().message());
            // Rows of x at an odd stride and offset; y at a padded stride.
            std::vector<float> storage;
            const float* x = place_rows(p.x, m, k, k + 3, 1, storage);
            GuardedOutput y(m, n + 5, 3);
            Status s =
                linear(*w, x, m, k + 3, y.data(), n + 5, with_bias ? p.bias.data() : nullptr);
            REQUIRE_MESSAGE(s.is_ok(), s.message());
            const std::string failure = check_output(p, y, 0, n);
            CHECK_MESSAGE(failure.empty(), failure);
          }
        }
      }
    }
  }

  TEST_CASE("bf16-activation kernels compute column ranges on panel boundaries only") {
    for (const LinearVariant* v : bf16_activation_variants()) {
      const size_t m = 7, n = 200, k = 129;
      const LinearProblem p = rounded_x_problem(m, n, k, true, 5);
      Expected<PackedWeights> w = pack_weights(p.w.data(), n, k, *v);
      REQUIRE(w.is_ok());
      GuardedOutput y(m, n, 0);
      const size_t begin = v->panel_width, end = linear_column_boundary(*w, 150);
      REQUIRE(linear_columns(*w, p.x.data(), m, k, y.data(), n, begin, end, p.bias.data()).is_ok());
      const std::string failure = check_output(p, y, begin, end);
      CHECK_MESSAGE(failure.empty(), failure);
    }
  }

  TEST_CASE("rounding x to bf16 is opt-in: choose_linear_variant never returns such a kernel") {
    for (Isa isa : runnable_isas()) {
      Expected<LinearVariantChoice> accurate = choose_linear_variant(WeightType::kBF16, isa);
      REQUIRE(accurate.is_ok());
      CHECK_FALSE(accurate->variant->rounds_x_to_bf16);
      Expected<LinearVariantChoice> fast = choose_linear_variant_bf16_activations(isa);
      REQUIRE_MESSAGE(fast.is_ok(), fast.status().message());
      CAPTURE(fast->reason);
      CHECK(fast->variant->type == WeightType::kBF16);
      if (fast->variant->rounds_x_to_bf16) {
        CHECK(cpu_has(CpuFeature::kAvx512Bf16));
        CHECK(fast->reason.find("bf16 activations") != std::string::npos);
      } else {
        // The accurate path, and the reason says why.
        CHECK(fast->variant == accurate->variant);
        CHECK(fast->reason.find("the accurate path") != std::string::npos);
      }
    }
  }
}

}  // namespace normrt::testing
