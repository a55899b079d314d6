// The int8 quantization (kernels/linear/linear_int8.h) against its formula:
// ties to even, the largest value at ±127, −0 and signs, zero, tiny and
// non-finite rows; quantize_int8() against the test's own implementation
// over random rows; packing from floats quantizes each output channel.

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

struct Quantized {
  std::vector<int8_t> q;
  float scale;
};

Quantized quantize(const std::vector<float>& v) {
  Quantized out{std::vector<int8_t>(v.size(), 99), 0.0f};
  out.scale = quantize_int8(v.data(), v.size(), out.q.data());
  return out;
}

}  // namespace

TEST_SUITE("linear_int8") {
  TEST_CASE("quantize_int8 rounds half to even at exact ties") {
    // max|v| = 127: the inverse is exactly 1, so q = rne(v).
    const Quantized a = quantize({0.5f, 1.5f, 2.5f, -2.5f, -3.5f, 126.5f, -126.5f, 127.0f, 0.49f});
    CHECK(a.scale == 1.0f);
    const std::vector<int8_t> want_a = {0, 2, 2, -2, -4, 126, -126, 127, 0};
    CHECK(a.q == want_a);
    // max|v| = 508: the inverse is exactly 1/4, so 10 → 2.5 → 2 and 14 → 3.5 → 4.
    const Quantized b = quantize({10.0f, 14.0f, -10.0f, -14.0f, 508.0f, 6.0f});
    CHECK(b.scale == 4.0f);
    const std::vector<int8_t> want_b = {2, 4, -2, -4, 127, 2};
    CHECK(b.q == want_b);
  }

  TEST_CASE("the largest magnitude maps to +-127, -128 never occurs, and q(-v) = -q(v)") {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> exponent(-30.0f, 30.0f), unit(-1.0f, 1.0f);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<float> v(37);
      const float magnitude = std::exp2(exponent(gen));
      for (float& x : v) x = magnitude * unit(gen);
      const size_t largest = gen() % v.size();
      v[largest] = (trial % 2 ? -1.0f : 1.0f) * magnitude;  // exactly the row's max |v|
      std::vector<float> negated(v.size());
      for (size_t i = 0; i < v.size(); ++i) negated[i] = -v[i];
      const Quantized a = quantize(v), b = quantize(negated);
      CAPTURE(trial);
      CHECK(a.q[largest] == (trial % 2 ? -127 : 127));
      CHECK(a.scale == b.scale);
      for (size_t i = 0; i < v.size(); ++i) {
        CHECK(a.q[i] != -128);
        CHECK(a.q[i] == -b.q[i]);
      }
    }
  }

  TEST_CASE("quantize_int8 equals the formula written out independently, bit for bit") {
    std::mt19937 gen(17);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    size_t mismatches = 0;
    for (size_t count : {1, 2, 3, 7, 16, 31, 64, 257, 1000}) {
      for (int trial = 0; trial < 50; ++trial) {
        std::vector<float> v(count);
        const float spread = std::exp2(static_cast<float>(static_cast<int>(gen() % 60) - 30));
        for (float& x : v) x = spread * normal(gen) * (gen() % 20 == 0 ? 30.0f : 1.0f);
        const Quantized got = quantize(v);
        const OracleInt8Row want = oracle_quantize_int8(v.data(), count);
        if (std::memcmp(&got.scale, &want.scale, sizeof got.scale) != 0 || got.q != want.q) {
          ++mismatches;
          if (mismatches <= 5) FAIL_CHECK("count " << count << ", trial " << trial);
        }
        // The rounding error is at most half a step (plus the float product's own).
        for (size_t i = 0; i < count; ++i) {
          const double error = std::fabs(static_cast<double>(v[i]) - got.q[i] * double{got.scale});
          CHECK(error <= 0.5 * got.scale * (1 + 1e-6) + 1e-6 * std::fabs(v[i]));
        }
      }
    }
    CHECK(mismatches == 0);
  }

  TEST_CASE("zero, tiny and subnormal rows quantize to zero with scale 0, never NaN") {
    const float threshold = 127.0f * FLT_MIN;  // below it a row counts as zero
    for (const std::vector<float>& v :
         {std::vector<float>{0.0f, -0.0f, 0.0f}, std::vector<float>{1e-37f, -1e-38f},
          std::vector<float>{std::numeric_limits<float>::denorm_min(), -1e-40f},
          std::vector<float>{std::nextafter(threshold, 0.0f), 1e-39f}}) {
      const Quantized z = quantize(v);
      CHECK(z.scale == 0.0f);
      for (int8_t q : z.q) CHECK(q == 0);
    }
    const Quantized just = quantize({threshold, threshold / 2});
    CHECK(just.scale == threshold / 127.0f);
    CHECK(just.q[0] == 127);
    CHECK(just.q[1] == 64);  // 63.5 → ties to even
    const Quantized big = quantize({FLT_MAX, -FLT_MAX / 2});
    CHECK(big.scale == FLT_MAX / 127.0f);
    CHECK(big.q[0] == 127);
    CHECK((big.q[1] == -63 || big.q[1] == -64));  // about −63.5 after the float product
  }

  TEST_CASE("a row holding an infinity or NaN has scale NaN and q 0") {
    for (float special :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
      const Quantized s = quantize({1.0f, special, -3.0f});
      CHECK(std::isnan(s.scale));
      for (int8_t q : s.q) CHECK(q == 0);
    }
  }

  TEST_CASE("pack_weights quantizes each output channel; non-finite weights are an error") {
    const size_t n = 9, k = 13;
    std::mt19937 gen(3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> w(n * k);
    for (size_t c = 0; c < n; ++c) {
      for (size_t i = 0; i < k; ++i) w[c * k + i] = normal(gen) * static_cast<float>(c + 1);
    }
    for (size_t i = 0; i < k; ++i) w[4 * k + i] = 0.0f;  // a zero output channel
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kInt8) continue;
      CAPTURE(v->name);
      Expected<PackedWeights> packed = pack_weights(w.data(), n, k, *v);
      REQUIRE(packed.is_ok());
      std::vector<int8_t> q(n * k);
      std::vector<float> scales(n);
      REQUIRE(unpack_weights_int8(packed->data(), packed->size_bytes(), n, k, v->panel_width,
                                  q.data(), scales.data())
                  .is_ok());
      for (size_t c = 0; c < n; ++c) {
        const OracleInt8Row row = oracle_quantize_int8(&w[c * k], k);
        CHECK(scales[c] == row.scale);
        CHECK(std::vector<int8_t>(q.begin() + c * k, q.begin() + (c + 1) * k) == row.q);
      }
      CHECK(scales[4] == 0.0f);
      std::vector<float> bad = w;
      bad[6 * k + 2] = std::numeric_limits<float>::infinity();
      Expected<PackedWeights> rejected = pack_weights(bad.data(), n, k, *v);
      REQUIRE_FALSE(rejected.is_ok());
      CHECK(rejected.status().message().find("row 6") != std::string::npos);
    }
  }
}

}  // namespace normrt::testing
