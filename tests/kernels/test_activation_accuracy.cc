// Every activation kernel variant this CPU runs against double libm, over
// the inputs of activation_inputs(): a dense grid, a sample of all floats,
// random magnitudes, the subnormal-output regions and special values. Each
// test prints the worst error it saw, so the margin to the tolerance is in
// the log.

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "kernels/activation/activation.h"
#include "tests/kernels/activation_test_support.h"

namespace normrt::testing {
namespace {

TEST_CASE("activation kernels match double libm within 1e-6 relative for every float class") {
  const std::vector<float> x = activation_inputs();
  for (const ActivationVariant* variant : activation_variants_under_test()) {
    const ActivationKernel kernel = variant->kernel;
    for (Activation activation : kAllActivations) {
      std::vector<float> y(x.size(), -1.0f);
      kernel(activation, kTestAlpha, x.data(), y.data(), x.size());
      const ActivationErrors e = compare_with_oracle(activation, x, y);
      MESSAGE(variant->name << " " << label(activation) << ": max " << e.max_ulps
                            << " ulp, max relative error " << e.max_relative << " over " << e.count
                            << " inputs");
      CHECK_MESSAGE(e.failures == 0,
                    variant->name << " " << label(activation) << ": " << e.failures
                                  << " outputs out of tolerance; first: " << e.first_failure);
    }
  }
}

// The cases the contract names: tails that must be tiny rather than 0 or
// NaN, saturation, infinities and NaN as PyTorch has them.
TEST_CASE("activation special values follow PyTorch and saturate without NaN") {
  const float inf = INFINITY, nan = std::nanf("");
  const std::vector<float> x = {-100.0f, -50.0f, -10.0f, -1e30f, -inf, -0.0f,
                                0.0f,    50.0f,  100.0f, 1e30f,  inf,  nan};
  for (const ActivationVariant* variant : activation_variants_under_test()) {
    const ActivationKernel kernel = variant->kernel;
    for (Activation activation : kAllActivations) {
      std::vector<float> y(x.size());
      kernel(activation, kTestAlpha, x.data(), y.data(), x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = activation_oracle(activation, x[i]);
        INFO(variant->name << " " << label(activation) << "(" << x[i] << ") = " << y[i] << ", want "
                           << want);
        CHECK(std::isnan(y[i]) == std::isnan(want));
        if (std::isinf(want)) CHECK(y[i] == want);
        if (std::isfinite(want)) {
          CHECK(std::fabs(y[i] - want) <=
                activation_tolerance(activation) * std::fabs(want) + kActivationFloor);
        }
      }
    }
    // relu keeps the sign of −0 (PyTorch's clamp_min does).
    const float minus_zero = -0.0f;
    float y = 1.0f;
    kernel(Activation::kRelu, 0.0f, &minus_zero, &y, 1);
    CHECK_MESSAGE(std::signbit(y), variant->name << ": relu(-0) = " << y);
  }
}

// A kernel that computed gelu(−10) as 0.5·x·(1 + erf(x/√2)) would return 0:
// check the tails are non-zero where the true value is a normal float.
TEST_CASE("activation tails are relatively accurate, not flushed to zero") {
  struct Tail {
    Activation activation;
    float x;
  };
  const Tail tails[] = {{Activation::kGeluErf, -10.0f},     {Activation::kGeluErf, -12.5f},
                        {Activation::kGeluErfBf16, -10.0f}, {Activation::kGeluErfBf16, -12.5f},
                        {Activation::kGeluTanh, -5.0f},     {Activation::kGeluTanh, -9.5f},
                        {Activation::kSilu, -80.0f},        {Activation::kSigmoid, -85.0f},
                        {Activation::kTanh, 1e-20f},        {Activation::kSigmoid, -100.0f}};
  for (const ActivationVariant* variant : activation_variants_under_test()) {
    const ActivationKernel kernel = variant->kernel;
    for (const Tail& t : tails) {
      float y = 0.0f;
      kernel(t.activation, 0.0f, &t.x, &y, 1);
      const double want = activation_oracle(t.activation, t.x);
      INFO(variant->name << " " << label(t.activation) << "(" << t.x << ") = " << y << ", want "
                         << want);
      CHECK(want != 0.0);
      CHECK(y != 0.0f);
      CHECK(std::fabs(y - want) <=
            activation_tolerance(t.activation) * std::fabs(want) + kActivationFloor);
    }
  }
}

// leaky_relu is one float multiply: every kernel must give exactly the
// rounded product α·x (as PyTorch's x > 0 ? x : x * α), for any slope,
// including the signs of zeros, infinities and NaN.
TEST_CASE("leaky_relu is exactly x for x > 0 and the float product α·x otherwise, for any slope") {
  const std::vector<float> x = activation_inputs();
  for (const ActivationVariant* variant : activation_variants_under_test()) {
    const ActivationKernel kernel = variant->kernel;
    for (float alpha : {0.1f, 0.01f, 0.2f, 0.0f, -0.5f, 3.0f, 1e-30f}) {
      std::vector<float> y(x.size());
      kernel(Activation::kLeakyRelu, alpha, x.data(), y.data(), x.size());
      size_t failures = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const float want = x[i] > 0.0f ? x[i] : alpha * x[i];
        if (!same_float(y[i], want) || std::signbit(y[i]) != std::signbit(want)) {
          if (failures++ < 3) {
            FAIL_CHECK(variant->name << " alpha " << alpha << ": leaky_relu(" << x[i]
                                     << ") = " << y[i] << ", want " << want);
          }
        }
      }
      CHECK_MESSAGE(failures == 0, variant->name << " alpha " << alpha << ": " << failures);
    }
    // The contract's named cases: −0 stays −0, −inf·0 is NaN (PyTorch).
    const float special[] = {-0.0f, -INFINITY};
    float y[2];
    kernel(Activation::kLeakyRelu, 0.1f, special, y, 2);
    CHECK(std::signbit(y[0]));
    CHECK(y[1] == -INFINITY);
    kernel(Activation::kLeakyRelu, 0.0f, special + 1, y, 1);
    CHECK(std::isnan(y[0]));
  }
}

}  // namespace
}  // namespace normrt::testing
