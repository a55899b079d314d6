// The attention core's vector loops against double precision: the exp of
// the softmax over its whole domain, and the blocked dot product over every
// tail length.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/ops/attention_math.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

TEST_SUITE("seq_ops") {
  TEST_CASE("exp_nonpositive_f32 is within 2 ulp of e^x on [-87.3, 0], 0 below") {
    // Every 1009th float in [-90, -0] (by bit pattern), plus the edges.
    std::vector<float> xs = {0.0f,    -0.0f,        -87.3f,       std::nextafter(-87.3f, 0.0f),
                             -1e-30f, -0.34657359f, -0.34657360f, -88.0f,
                             -1000.0f};
    uint32_t last;
    const float minus_90 = -90.0f;
    std::memcpy(&last, &minus_90, sizeof last);
    for (uint32_t bits = 0x80000000u; bits <= last; bits += 1009) {
      float x;
      std::memcpy(&x, &bits, sizeof x);
      xs.push_back(x);
    }
    size_t checked = 0;
    double worst_ulps = 0.0;
    for (float x : xs) {
      const float got = seq_op::exp_nonpositive_f32(x);
      const double exact = std::exp(static_cast<double>(x));
      if (x < -87.3f) {
        if (got != 0.0f) FAIL_CHECK("x " << x << ": got " << got << ", expected 0 below -87.3");
        continue;
      }
      const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
      const double ulps = std::fabs(got - exact) / ulp;
      worst_ulps = std::max(worst_ulps, ulps);
      if (!(ulps <= 2.0)) {
        FAIL_CHECK("x " << x << ": got " << got << ", exact " << exact << ", " << ulps
                        << " ulp > 2");
        break;
      }
      ++checked;
    }
    CHECK(checked > 1000000);
    MESSAGE("exp_nonpositive_f32: worst " << worst_ulps << " ulp over " << checked << " points");
    CHECK(seq_op::exp_nonpositive_f32(0.0f) == 1.0f);
    CHECK(seq_op::exp_nonpositive_f32(-std::numeric_limits<float>::infinity()) == 0.0f);
    CHECK(std::isnan(seq_op::exp_nonpositive_f32(std::numeric_limits<float>::quiet_NaN())));
  }

  TEST_CASE("dot_f32 over lengths 0..70 within (n/16 + 5)·2^-24·Σ|a·b|") {
    const std::vector<float> a = uniform_floats(70, -2.0f, 2.0f, 71);
    const std::vector<float> b = uniform_floats(70, -2.0f, 2.0f, 72);
    for (size_t n = 0; n <= 70; ++n) {
      double exact = 0.0, magnitude = 0.0;
      for (size_t i = 0; i < n; ++i) {
        exact += double{a[i]} * b[i];
        magnitude += std::fabs(double{a[i]} * b[i]);
      }
      const double got = seq_op::dot_f32(a.data(), b.data(), n);
      const double tol = (n / 16.0 + 5.0) * std::ldexp(1.0, -24) * magnitude;
      CHECK_MESSAGE(std::fabs(got - exact) <= tol,
                    "n " << n << ": got " << got << ", exact " << exact << ", tolerance " << tol);
    }
  }
}

}  // namespace
}  // namespace normrt::testing
