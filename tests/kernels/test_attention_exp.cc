// The softmax exponential of every SIMD attention variant (2^x: the kernels
// keep scores in base 2) against double libm over its whole domain (x ≤ 0):
// within 2 ulp where 2^x is a normal float, exactly 0 below, and the special
// values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

float from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// The smallest float x with 2^x ≥ 2^-126.
const float kCutoff = -126.0f;

TEST_SUITE("attention") {
  TEST_CASE("the softmax exponential is within 2 ulp of 2^x on [-126, 0] and 0 below") {
    // Every 101st float in [−130, −0] by bit pattern (1.1e7 points; every
    // 1009th in quick mode), both neighbours of the cutoff, the reduction's
    // ties (x = −k − 1/2 rounds to even), odd lengths.
    std::vector<float> x = {0.0f,
                            -0.0f,
                            kCutoff,
                            std::nextafter(kCutoff, -200.0f),
                            std::nextafter(kCutoff, 0.0f),
                            -1e-30f,
                            -0.5f,
                            -1.5f,
                            -2.5f,
                            -125.5f,
                            std::nextafter(-0.5f, 0.0f),
                            std::nextafter(-0.5f, -1.0f),
                            -127.0f,
                            -1000.0f,
                            -std::numeric_limits<float>::max()};
    const uint32_t step = attention_quick_mode() ? 1009 : 101;
    for (uint32_t bits = 0x80000000u; bits <= 0xC3020000u; bits += step)
      x.push_back(from_bits(bits));
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      if (variant->exp2_row == nullptr) continue;  // the reference uses double std::exp
      const std::string name = variant->name;
      CAPTURE(name);
      std::vector<float> y(x.size() + 1, 7.0f);
      variant->exp2_row(x.data(), y.data(), x.size());
      CHECK(y[x.size()] == 7.0f);  // nothing written past n
      double worst = 0.0;
      size_t failures = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double exact = std::exp2(static_cast<double>(x[i]));
        if (x[i] < kCutoff) {
          if (y[i] != 0.0f && failures++ == 0) {
            FAIL_CHECK("2^" << x[i] << " = " << y[i] << ", expected 0 below the cutoff");
          }
          continue;
        }
        const double ulps = std::fabs(y[i] - exact) / std::ldexp(1.0, std::ilogb(exact) - 23);
        worst = std::max(worst, ulps);
        if (!(ulps <= 2.0) && failures++ == 0) {
          FAIL_CHECK("2^" << x[i] << " = " << y[i] << ", exact " << exact << ": " << ulps
                          << " ulp > 2");
        }
      }
      CHECK(failures == 0);
      MESSAGE(std::string(variant->name)
              << ": worst " << worst << " ulp over " << x.size() << " arguments");

      const float special[] = {-std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(), -0.0f};
      float out[3];
      for (size_t n = 1; n <= 3; ++n) {  // partial vectors too
        variant->exp2_row(special, out, n);
        CHECK(out[0] == 0.0f);
        if (n > 1) CHECK(std::isnan(out[1]));
        if (n > 2) CHECK(out[2] == 1.0f);
      }
    }
  }
}

}  // namespace
}  // namespace normrt::testing
