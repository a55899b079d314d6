// The activations' int8 quantization (kernels/linear/linear_int8.h: per row,
// asymmetric, a zero point) against its formula: a symmetric row gets zero
// point 0 and the weights' grid, a one-sided row twice the levels, the
// range's ends map to ∓127, 0 is exact; zero, tiny and non-finite rows;
// quantize_int8_activations() against the test's own implementation over
// random rows; and every kernel's own row quantization, read back through
// linear() on lopsided rows.

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
  Int8Activations a;
};

Quantized quantize(const std::vector<float>& v) {
  Quantized out{std::vector<int8_t>(v.size(), 99), {}};
  out.a = quantize_int8_activations(v.data(), v.size(), out.q.data());
  return out;
}

}  // namespace

TEST_SUITE("linear_int8") {
  TEST_CASE("a symmetric row quantizes as the weights do: zero point 0, scale max/127") {
    const std::vector<float> v = {-508.0f, 10.0f, 14.0f, -10.0f, 508.0f, 6.0f, 0.0f};
    const Quantized got = quantize(v);
    std::vector<int8_t> symmetric(v.size());
    const float scale = quantize_int8(v.data(), v.size(), symmetric.data());
    CHECK(got.a.zero_point == 0);
    CHECK(got.a.scale == scale);
    CHECK(got.q == symmetric);
    const std::vector<int8_t> want = {-127, 2, 4, -2, 127, 2, 0};  // 2.5 → 2, 3.5 → 4
    CHECK(got.q == want);
  }

  TEST_CASE("a one-sided row spans -127 ... 127 with 0 at an end: twice the levels") {
    // [0, 254]: scale 1, zero point −127, q = v − 127.
    const Quantized pos = quantize({0.0f, 1.0f, 2.5f, 3.5f, 254.0f, 127.0f});
    CHECK(pos.a.scale == 1.0f);
    CHECK(pos.a.zero_point == -127);
    const std::vector<int8_t> want_pos = {-127, -126, -125, -123, 127, 0};
    CHECK(pos.q == want_pos);
    // All negative, no 0 in the row: the range still holds 0 (at q = 127).
    const Quantized neg = quantize({-254.0f, -1.0f, -127.0f});
    CHECK(neg.a.scale == 1.0f);
    CHECK(neg.a.zero_point == 127);
    const std::vector<int8_t> want_neg = {-127, 126, 0};
    CHECK(neg.q == want_neg);
  }

  TEST_CASE("lopsided rows: the ends map to -127 and 127, 0 to the zero point, half a step") {
    std::mt19937 gen(23);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), exponent(-30.0f, 30.0f);
    for (int trial = 0; trial < 3000; ++trial) {
      CAPTURE(trial);
      const float hi = std::exp2(exponent(gen)), lo = -hi * unit(gen) * (trial % 3 ? 1.0f : 0.05f);
      std::vector<float> v(29);
      for (float& x : v) x = lo + (hi - lo) * unit(gen);
      const size_t low = gen() % v.size(), high = (low + 1 + gen() % (v.size() - 1)) % v.size();
      v[low] = lo;
      v[high] = hi;
      v[(high + 1) % v.size() == low ? (high + 2) % v.size() : (high + 1) % v.size()] = 0.0f;
      const Quantized got = quantize(v);
      CHECK(got.a.zero_point >= -127);
      CHECK(got.a.zero_point <= 127);
      if (lo < 0.0f) CHECK(got.q[low] == -127);
      CHECK(got.q[high] >= 126);  // 127, or 126 where the float roundings tie the other way
      for (size_t i = 0; i < v.size(); ++i) {
        CHECK(got.q[i] != -128);
        if (v[i] == 0.0f) CHECK(got.q[i] == got.a.zero_point);
        const double dequantized = double{got.a.scale} * (got.q[i] - got.a.zero_point);
        CHECK(std::fabs(v[i] - dequantized) <= got.a.scale * (0.5 + 1e-4));
      }
    }
  }

  TEST_CASE("quantize_int8_activations equals the formula written out independently") {
    std::mt19937 gen(19);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    size_t mismatches = 0;
    for (size_t count : {1, 2, 3, 7, 16, 31, 64, 257, 1000}) {
      for (int trial = 0; trial < 60; ++trial) {
        std::vector<float> v(count);
        const float spread = std::exp2(static_cast<float>(static_cast<int>(gen() % 60) - 30));
        const float shift = static_cast<float>(trial % 3) * spread;  // centred, lopsided, one-sided
        for (float& x : v) x = spread * normal(gen) * (gen() % 20 == 0 ? 30.0f : 1.0f) + shift;
        if (trial % 4 == 3) {
          for (float& x : v) x = std::max(x, -0.17f * spread);  // GELU-like
        }
        const Quantized got = quantize(v);
        const OracleInt8Row want = oracle_quantize_int8_activations(v.data(), count);
        if (std::memcmp(&got.a.scale, &want.scale, sizeof want.scale) != 0 ||
            got.a.zero_point != want.zero_point || got.q != want.q) {
          if (++mismatches <= 5) FAIL_CHECK("count " << count << ", trial " << trial);
        }
      }
    }
    CHECK(mismatches == 0);
  }

  TEST_CASE("zero, tiny and non-finite activation rows") {
    const float threshold = 254.0f * FLT_MIN;  // below it a range counts as zero
    for (const std::vector<float>& v :
         {std::vector<float>{0.0f, -0.0f, 0.0f}, std::vector<float>{1e-37f, -1e-38f},
          std::vector<float>{std::numeric_limits<float>::denorm_min(), -1e-40f}}) {
      const Quantized z = quantize(v);
      CHECK(z.a.scale == 0.0f);
      CHECK(z.a.zero_point == 0);
      for (int8_t q : z.q) CHECK(q == 0);
    }
    const Quantized just = quantize({threshold, 0.0f});
    CHECK(just.a.scale == FLT_MIN);
    CHECK(just.a.zero_point == -127);
    CHECK(just.q[0] == 127);
    const Quantized wide = quantize({FLT_MAX, -FLT_MAX});  // hi − lo overflows float, not double
    CHECK(wide.a.scale == static_cast<float>(2.0 * FLT_MAX / 254.0));
    CHECK(wide.a.zero_point == 0);
    CHECK(wide.q[0] == 127);
    CHECK(wide.q[1] == -127);
    for (float special :
         {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
      const Quantized s = quantize({1.0f, special, -3.0f});
      CHECK(std::isnan(s.a.scale));
      for (int8_t q : s.q) CHECK(q == 0);
    }
  }

  TEST_CASE("every kernel's own row quantization follows the formula (read back through y)") {
    // Identity weights (one 1 per column: qw = 127, sw = 1/127) read each
    // quantized value back through the epilogue, y[c] = sx·(q[c] − z) up to
    // the epilogue's rounding, so a kernel whose q or zero point differs from
    // the formula's by one step shows in y.
    const size_t k = 77, n = 77, m = 5;
    std::vector<float> w(n * k, 0.0f);
    for (size_t c = 0; c < n; ++c) w[c * k + c] = 1.0f;
    std::mt19937 gen(29);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> x(m * k);
    for (size_t r = 0; r < m; ++r) {
      for (size_t i = 0; i < k; ++i) {
        const float v = unit(gen);  // centred, one-sided, lopsided, mostly negative
        x[r * k + i] = r == 0 ? v : r == 1 ? std::fabs(v) : r == 2 ? 3.0f * v + 2.0f : v - 0.9f;
      }
    }
    x[4 * k + 5] = std::numeric_limits<float>::quiet_NaN();  // row 4: NaN throughout
    std::vector<double> want(4 * n);
    std::vector<int8_t> q(k);
    for (size_t r = 0; r < 4; ++r) {
      const Int8Activations a = quantize_int8_activations(&x[r * k], k, q.data());
      CHECK(a.zero_point != 0);
      for (size_t c = 0; c < n; ++c) want[r * n + c] = double(q[c] - a.zero_point) * a.scale;
    }
    for (const LinearVariant* v : runnable_variants()) {
      if (v->type != WeightType::kInt8) continue;
      CAPTURE(v->name);
      Expected<PackedWeights> packed = pack_weights(w.data(), n, k, *v);
      REQUIRE(packed.is_ok());
      std::vector<float> y(m * n);
      REQUIRE(linear(*packed, x.data(), m, k, y.data(), n, nullptr).is_ok());
      for (size_t i = 0; i < 4 * n; ++i) {
        CAPTURE(i);
        CHECK(std::fabs(y[i] - want[i]) <= 1e-6 * std::fabs(want[i]));
      }
      for (size_t c = 0; c < n; ++c) CHECK(std::isnan(y[4 * n + c]));
    }
  }
}

}  // namespace normrt::testing
