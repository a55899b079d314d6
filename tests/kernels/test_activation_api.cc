// Names, dispatch and argument validation of the activation entry points.

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/activation/activation.h"
#include "tests/kernels/activation_test_support.h"

namespace normrt::testing {
namespace {

TEST_CASE("activation names round-trip and unknown names are rejected with the valid list") {
  for (Activation activation : kAllActivations) {
    const Expected<Activation> parsed = activation_from_name(activation_name(activation));
    REQUIRE_MESSAGE(parsed.is_ok(), label(activation));
    CHECK(*parsed == activation);
  }
  const Expected<Activation> bogus = activation_from_name("gelu");
  REQUIRE_FALSE(bogus.is_ok());
  CHECK(bogus.status().message().find("'gelu'") != std::string::npos);
  CHECK(bogus.status().message().find("gelu_erf, gelu_tanh") != std::string::npos);
  CHECK(std::string(activation_name(static_cast<Activation>(99))) == "invalid");
}

TEST_CASE("activation_kernel_for gives a kernel exactly for the compiled ISAs") {
  for (Isa isa : kAllIsas) {
    INFO(label(isa));
    const bool has_kernel = activation_kernel_for(isa) != nullptr;
    CHECK(has_kernel == isa_compiled(isa));
  }
}

TEST_CASE("activate validates its arguments and runs in place") {
  std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.5f, 2.0f};
  std::vector<float> y(x.size());
  CHECK(activate(Activation::kSilu, 0.0f, x.data(), y.data(), x.size()).is_ok());
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = activation_oracle(Activation::kSilu, x[i]);
    CHECK(std::abs(y[i] - want) <= kActivationTolerance * std::abs(want) + kActivationFloor);
  }

  SUBCASE("in place") {
    std::vector<float> z = x;
    REQUIRE(activate(Activation::kSilu, 0.0f, z.data(), z.data(), z.size()).is_ok());
    CHECK(z == y);
  }
  SUBCASE("n = 0 needs no buffers") {
    CHECK(activate(Activation::kTanh, 0.0f, nullptr, nullptr, 0).is_ok());
  }
  SUBCASE("null pointers") {
    const Status no_x = activate(Activation::kTanh, 0.0f, nullptr, y.data(), 1);
    CHECK_FALSE(no_x.is_ok());
    CHECK(no_x.message().find("x is null") != std::string::npos);
    const Status no_y = activate(Activation::kTanh, 0.0f, x.data(), nullptr, 1);
    CHECK_FALSE(no_y.is_ok());
    CHECK(no_y.message().find("y is null") != std::string::npos);
  }
  SUBCASE("partial overlap") {
    const Status s = activate(Activation::kRelu, 0.0f, x.data(), x.data() + 1, 3);
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find("overlap") != std::string::npos);
  }
  SUBCASE("invalid enum value") {
    const Status s = activate(static_cast<Activation>(42), 0.0f, x.data(), y.data(), x.size());
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find("42") != std::string::npos);
  }
  SUBCASE("leaky_relu needs a finite alpha; the others ignore it") {
    const Status s = activate(Activation::kLeakyRelu, NAN, x.data(), y.data(), x.size());
    CHECK_FALSE(s.is_ok());
    CHECK(s.message().find("leaky_relu's alpha must be finite") != std::string::npos);
    CHECK(activate(Activation::kRelu, NAN, x.data(), y.data(), x.size()).is_ok());
  }
  SUBCASE("none copies, and in place leaves x alone") {
    std::vector<float> z(x.size(), 7.0f);
    REQUIRE(activate(Activation::kNone, 0.0f, x.data(), z.data(), x.size()).is_ok());
    CHECK(z == x);
    REQUIRE(activate(Activation::kNone, 0.0f, z.data(), z.data(), z.size()).is_ok());
    CHECK(z == x);
  }
}

}  // namespace
}  // namespace normrt::testing
