#include "tests/kernels/activation_test_support.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

namespace normrt::testing {

double activation_oracle(Activation activation, float xf, float alpha) {
  const double x = xf;
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x < 0.0 ? 0.0 : x;
    case Activation::kGeluErf:
    case Activation::kGeluErfBf16:
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case Activation::kGeluTanh: {
      const double u = std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * std::pow(x, 3));
      return x / (1.0 + std::exp(-2.0 * u));  // = 0.5·x·(1 + tanh(u))
    }
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Activation::kLeakyRelu:
      return x > 0.0 ? x : static_cast<double>(alpha) * x;
  }
  return std::nan("");
}

bool activation_quick_mode() {
  const char* value = std::getenv("NORMRT_TEST_QUICK");
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

namespace {

float from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

std::vector<float> activation_inputs() {
  std::vector<float> x;
  for (int k = -20 * 64; k <= 20 * 64; ++k) x.push_back(static_cast<float>(k) / 64.0f);
  // Every 65521st bit pattern (prime, so every exponent and mantissa region is hit).
  const uint64_t stride = activation_quick_mode() ? 4 * 65521 : 65521;
  for (uint64_t bits = 12345; bits < (uint64_t{1} << 32); bits += stride) {
    x.push_back(from_bits(static_cast<uint32_t>(bits)));
  }
  std::mt19937 rng(20240611);
  std::uniform_real_distribution<float> exponent(-40.0f, 10.0f), centre(-16.0f, 16.0f);
  std::bernoulli_distribution negative(0.5);
  const int random_count = activation_quick_mode() ? 4000 : 20000;
  for (int i = 0; i < random_count; ++i) {
    const float magnitude = std::exp2(exponent(rng));
    x.push_back(negative(rng) ? -magnitude : magnitude);
    x.push_back(centre(rng));
  }
  // Where outputs turn subnormal (sigmoid/silu near −87..−104, GELU near −13,
  // tanh-GELU near −10) and around the kernels' clamps (10, 11, 14.5, 120).
  for (float v = -110.0f; v <= -80.0f; v += 0.125f) x.push_back(v);
  for (float v = -16.0f; v <= -8.0f; v += 1.0f / 128) x.push_back(v);
  for (float clamp : {9.0f, 10.0f, 11.0f, 14.5f, 120.0f}) {
    for (float v : {clamp, std::nextafter(clamp, 0.0f), std::nextafter(clamp, 1e9f)}) {
      x.push_back(v);
      x.push_back(-v);
    }
  }
  const float inf = INFINITY;
  for (float v : {0.0f, 0x1p-149f, 0x1p-130f, FLT_MIN, 1e-30f, 1e-10f, 1e-5f, 0.5f, 1.0f, 2.0f,
                  10.0f, 50.0f, 100.0f, 1e5f, 1e10f, 1e30f, FLT_MAX, inf}) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(std::nanf(""));
  x.push_back(-std::nanf(""));
  return x;
}

bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

ActivationErrors compare_with_oracle(Activation activation, const std::vector<float>& x,
                                     const std::vector<float>& y, float alpha) {
  ActivationErrors e;
  e.count = x.size();
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = activation_oracle(activation, x[i], alpha);
    const double got = y[i];
    const double error = std::fabs(got - want);
    const double bound = activation_tolerance(activation) * std::fabs(want) + kActivationFloor;
    bool ok;
    if (std::isnan(want)) {
      ok = std::isnan(got);
    } else if (std::isinf(want)) {
      ok = got == want;
    } else {
      ok = error <= bound;
      const float want_f = static_cast<float>(want);
      const double ulp = std::fabs(want_f) < FLT_MIN ? 0x1p-149
                         : std::isinf(want_f)
                             ? 0x1p104
                             : std::nextafter(std::fabs(want_f), INFINITY) - std::fabs(want_f);
      if (!(error / ulp <= e.max_ulps)) e.max_ulps = error / ulp;
      if (std::fabs(want) >= FLT_MIN && !(error / std::fabs(want) <= e.max_relative)) {
        e.max_relative = error / std::fabs(want);
      }
    }
    if (!ok && e.failures++ == 0) {
      std::ostringstream out;
      out.precision(9);
      out << "x = " << x[i] << " (index " << i << "): got " << got << " want " << want
          << " |error| " << error << " > bound " << bound;
      e.first_failure = out.str();
    }
  }
  return e;
}

std::string label(Isa isa) { return isa_name(isa); }
std::vector<const ActivationVariant*> activation_variants_under_test() {
  return variants_under_test(activation_variants());
}
std::string label(Activation activation) { return activation_name(activation); }

}  // namespace normrt::testing
