#include "tests/runtime/ops/op_reference.h"

#include <cmath>
#include <sstream>

namespace normrt::testing {

double effective_gain(const NormParams& params, const std::vector<float>& gain, size_t i) {
  if (gain.empty()) return 1.0;
  return params.gain_convention == GainConvention::kOnePlus ? 1.0 + gain[i] : double(gain[i]);
}

NormReference reference_norm(const NormParams& params, const std::vector<double>& s,
                             const std::vector<float>& gain, const std::vector<float>& bias) {
  const size_t n = s.size();
  double mean = 0.0, stat = 0.0;
  if (params.kind == NormKind::kLayerNorm) {
    for (double v : s) mean += v;
    mean /= double(n);
    for (double v : s) stat += (v - mean) * (v - mean);
    stat /= double(n);
  } else {
    const size_t k =
        params.kind == NormKind::kPRmsNorm ? static_cast<size_t>(params.p * double(n)) : n;
    for (size_t i = 0; i < k; ++i) stat += s[i] * s[i];
    stat /= double(k);
  }
  const double eps = params.eps;
  const double denominator = params.eps_placement == EpsPlacement::kInsideSqrt
                                 ? std::sqrt(stat + eps)
                                 : std::sqrt(stat) + eps;
  NormReference ref;
  ref.denominator = denominator;
  for (size_t i = 0; i < n; ++i) {
    const double x_hat = (s[i] - mean) / denominator;
    ref.x_hat.push_back(x_hat);
    ref.y.push_back(x_hat * effective_gain(params, gain, i) + (bias.empty() ? 0.0 : bias[i]));
  }
  if (params.kind == NormKind::kLayerNorm)
    ref.sigma_over_denominator = std::sqrt(stat) / denominator;
  return ref;
}

double norm_tolerance(const NormParams& params, const NormReference& ref,
                      const std::vector<float>& gain, const std::vector<float>& bias, size_t i) {
  const double g = std::fabs(effective_gain(params, gain, i));
  double tolerance =
      4e-6 * (std::fabs(ref.x_hat[i]) * g + (bias.empty() ? 0.0 : std::fabs(bias[i])));
  if (params.kind == NormKind::kLayerNorm) tolerance += 4e-6 * g * ref.sigma_over_denominator;
  return tolerance;
}

double reference_activation(Activation activation, double x) {
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0 ? x : 0.0;
    case Activation::kGeluErf:  // 1 + erf(z) = erfc(−z), without cancellation for z < 0
    case Activation::kGeluErfBf16:
      return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case Activation::kGeluTanh: {  // 1 + tanh(u) = 2 / (1 + e^−2u), without cancellation
      const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
      return x / (1.0 + std::exp(-2.0 * u));
    }
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Activation::kLeakyRelu:
      return x > 0 ? x : static_cast<double>(static_cast<float>(kTestNegativeSlope)) * x;
  }
  return NAN;
}

std::vector<Attribute> activation_attributes(Activation activation) {
  std::vector<Attribute> attributes = {{"activation", std::string(activation_name(activation))}};
  if (activation == Activation::kLeakyRelu) {
    attributes.push_back({"negative_slope", kTestNegativeSlope});
  }
  return attributes;
}

std::string mismatch(size_t index, double got, double expected, double tolerance) {
  std::ostringstream text;
  text.precision(9);
  text << "index " << index << ": got " << got << ", expected " << expected << ", |diff| "
       << std::fabs(got - expected) << ", tolerance " << tolerance;
  return text.str();
}

}  // namespace normrt::testing
