// Every runnable linear variant, both weight types, against the independent
// double oracle (tests/kernels/linear_test_support.h) over odd and even
// shapes, 1..64 rows, with and without bias; bf16 rounding and packing.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <ios>
#include <limits>
#include <random>
#include <utility>

#include "base/bf16.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// (k, n) pairs: every size in {1, 3, 17, 255, 257, 1000, 4097} appears as k
// and as n (below and above the panel widths 16, 32, 64, and odd k for the
// bf16 pair padding), without the cost of the full product.
const std::pair<size_t, size_t> kShapes[] = {
    {1, 1},     {1, 4097},  {3, 17},    {17, 3},    {255, 257},  {257, 255},
    {1000, 64}, {64, 1000}, {4097, 17}, {17, 4097}, {257, 1000},
};
const size_t kRowCounts[] = {1, 2, 7, 64};

// For f32 and bf16 weights on every runnable variant: one call of m rows
// matches the oracle, and calls of 7 rows from each of `starts` give the
// same bits as that call.
void check_rows_as_in_row_calls(size_t m, size_t n, size_t k, uint32_t seed,
                                std::initializer_list<size_t> starts) {
  for (WeightType type : {WeightType::kF32, WeightType::kBF16}) {
    const LinearProblem p = make_problem(m, n, k, type, true, seed);
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != type) continue;
      CAPTURE(variant_label(*v));
      Expected<PackedWeights> w = pack_weights(p.w.data(), n, k, *v);
      REQUIRE_MESSAGE(w.is_ok(), w.status().message());
      GuardedOutput y(m, n, 0);
      REQUIRE(linear(*w, p.x.data(), m, k, y.data(), n, p.bias.data()).is_ok());
      const std::string failure = check_output(p, y, 0, n);
      CHECK_MESSAGE(failure.empty(), failure);
      for (size_t r0 : starts) {
        const size_t rows = std::min<size_t>(7, m - r0);
        GuardedOutput part(rows, n, 0);
        REQUIRE(linear(*w, p.x.data() + r0 * k, rows, k, part.data(), n, p.bias.data()).is_ok());
        size_t differing = 0;
        for (size_t r = 0; r < rows; ++r) {
          for (size_t c = 0; c < n; ++c) {
            differing += bits_of(part.at(r, c)) != bits_of(y.at(r0 + r, c));
          }
        }
        CHECK_MESSAGE(differing == 0, differing << " outputs of rows " << r0 << ".."
                                                << r0 + rows - 1 << " differ from the " << m
                                                << "-row call");
      }
    }
  }
}

}  // namespace

TEST_SUITE("linear") {
  TEST_CASE("bf16_from_float rounds to nearest, ties to even, and keeps NaN a NaN") {
    CHECK(bf16_from_float(1.0f) == 0x3f80);
    CHECK(bf16_from_float(float_of(0x3f808000u)) == 0x3f80);  // tie, even stays
    CHECK(bf16_from_float(float_of(0x3f818000u)) == 0x3f82);  // tie, odd rounds up
    CHECK(bf16_from_float(float_of(0x3f808001u)) == 0x3f81);  // above the tie
    CHECK(bf16_from_float(-0.0f) == 0x8000);
    CHECK(bf16_from_float(std::numeric_limits<float>::infinity()) == 0x7f80);
    CHECK(bf16_from_float(std::numeric_limits<float>::max()) == 0x7f80);  // overflows to inf
    for (uint32_t nan_bits : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
      const uint16_t h = bf16_from_float(float_of(nan_bits));
      INFO("NaN bits 0x" << std::hex << nan_bits << " -> 0x" << h);
      CHECK(std::isnan(float_from_bf16(h)));
      CHECK((h & 0x8000) == ((nan_bits >> 16) & 0x8000));  // sign kept
    }
    std::mt19937 gen(7);
    for (int i = 0; i < 200000; ++i) {
      const float value = float_of(gen());
      if (std::isnan(value)) continue;
      const float got = float_from_bf16(bf16_from_float(value));
      const float want = oracle_bf16_round(value);
      if (bits_of(got) != bits_of(want)) {
        FAIL("bf16 rounding of bits 0x" << std::hex << bits_of(value) << ": got 0x" << bits_of(got)
                                        << ", oracle 0x" << bits_of(want));
      }
    }
  }

  TEST_CASE("every variant matches the double oracle for odd shapes, m in {1,2,7,64}, +-bias") {
    for (const auto& [k, n] : kShapes) {
      for (size_t m : kRowCounts) {
        if (linear_quick_mode() && m * n * k > 2000000) continue;
        for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
          for (bool with_bias : {false, true}) {
            const LinearProblem p =
                make_problem(m, n, k, type, with_bias, static_cast<uint32_t>(m * 131 + n * 7 + k));
            for (const LinearVariant* v : runnable_variants()) {
              if (v->type != type) continue;
              CAPTURE(variant_label(*v));
              CAPTURE(m);
              CAPTURE(n);
              CAPTURE(k);
              CAPTURE(with_bias);
              Expected<PackedWeights> w = pack_weights(p.w.data(), n, k, *v);
              REQUIRE_MESSAGE(w.is_ok(), w.status().message());
              GuardedOutput y(m, n, 0);
              Status s =
                  linear(*w, p.x.data(), m, k, y.data(), n, with_bias ? p.bias.data() : nullptr);
              REQUIRE_MESSAGE(s.is_ok(), s.message());
              const std::string failure = check_output(p, y, 0, n);
              CHECK_MESSAGE(failure.empty(), failure);
            }
          }
        }
      }
    }
  }

  // Long rows (k = 8191: x of 70 rows is 2.3 MB, beyond L2, which turns the
  // GEMM's loop order chunk-major) in one call and in calls of a few rows
  // (the panel-major order): every row matches the oracle, and its bits do
  // not depend on which rows share the call (linear_gemm_simd.h's summation
  // order).
  TEST_CASE(
      "long rows: oracle accuracy, and the bits of a row do not depend on the call's other rows") {
    check_rows_as_in_row_calls(70, 70, 8191, 4242, {0, 17, 34, 63});
  }

  // Many rows (600 of k = 1000: x is 2.4 MB, so the GEMM runs chunk-major,
  // and its row groups hold 16-128 rows depending on the variant's chunk, so
  // the call spans 2-7 groups; the long rows above fit one group): the same,
  // with row calls across group boundaries.
  TEST_CASE("many rows: the chunk-major order over several row groups is exact") {
    check_rows_as_in_row_calls(600, 70, 1000, 1717, {0, 92, 123, 300, 593});
  }

  TEST_CASE("pack_weights_bf16 of bf16 bits equals pack_weights rounding the floats") {
    const size_t n = 100, k = 33;
    const LinearProblem p = make_problem(1, n, k, WeightType::kBF16, false, 11);
    std::vector<uint16_t> bits(n * k);
    for (size_t i = 0; i < n * k; ++i) bits[i] = bf16_from_float(p.w[i]);
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kBF16) continue;
      CAPTURE(variant_label(*v));
      Expected<PackedWeights> from_float = pack_weights(p.w.data(), n, k, *v);
      Expected<PackedWeights> from_bits = pack_weights_bf16(bits.data(), n, k, *v);
      REQUIRE(from_float.is_ok());
      REQUIRE(from_bits.is_ok());
      REQUIRE(from_float->size_bytes() == from_bits->size_bytes());
      CHECK(std::memcmp(from_float->data(), from_bits->data(), from_bits->size_bytes()) == 0);
    }
  }

  TEST_CASE("pack_weights(.., isa) picks a runnable variant of that ISA and weight type") {
    const std::vector<float> w(8 * 8, 0.5f);
    for (Isa isa : runnable_isas()) {
      for (WeightType type : {WeightType::kF32, WeightType::kBF16, WeightType::kInt8}) {
        Expected<PackedWeights> packed = pack_weights(w.data(), 8, 8, type, isa);
        REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
        Expected<LinearVariantChoice> choice = choose_linear_variant(type, isa);
        REQUIRE(choice.is_ok());
        CHECK(&packed->variant() == choice->variant);
        // int8 may fall back to a lower ISA (a CPU without VNNI or dotprod).
        if (type != WeightType::kInt8) CHECK(packed->isa() == isa);
        CHECK(packed->type() == type);
        CHECK(linear_variant_runnable(packed->variant()));
        CHECK(reinterpret_cast<uintptr_t>(packed->data()) % 64 == 0);
        CHECK(packed->panel_bytes() % 64 == 0);
      }
    }
    std::string names;
    for (const LinearVariant* v : runnable_variants()) names += std::string(" ") + v->name;
    MESSAGE("runnable linear variants (all tested):" << names);
  }

  TEST_CASE("a NaN or infinity in x reaches every output, as 0 * NaN = 0 * inf = NaN") {
    // int8: the row's scale is NaN, so every output of the row is NaN.
    for (const LinearVariant* v : runnable_variants()) {
      CAPTURE(variant_label(*v));
      const size_t n = 70, k = 5;
      std::vector<float> w(n * k, 0.0f);
      for (size_t c = 0; c < n; ++c) w[c * k + (c % k)] = 1.0f;
      Expected<PackedWeights> packed = pack_weights(w.data(), n, k, *v);
      REQUIRE(packed.is_ok());
      for (float special :
           {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        float x[k] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
        x[3] = special;
        std::vector<float> y(n);
        REQUIRE(linear(*packed, x, 1, k, y.data(), n, nullptr).is_ok());
        for (size_t c = 0; c < n; ++c) {
          CAPTURE(c);
          if (std::isinf(special) && c % k == 3 && v->type != WeightType::kInt8) {
            CHECK(y[c] == special);  // 1 * inf plus finite terms
          } else {
            CHECK(std::isnan(y[c]));
          }
        }
      }
    }
  }
}

}  // namespace normrt::testing
