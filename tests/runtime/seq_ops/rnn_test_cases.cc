#include "tests/runtime/seq_ops/rnn_test_cases.h"

#include <algorithm>
#include <cmath>

#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {

const NormCase kNormCases[5] = {
    {"layer_norm", "layer_norm", nullptr, nullptr, -1.0, 0.0, {RefNorm::kLayerNorm}},
    {"rms_norm, added_to_rms, one_plus, eps 1e-6",
     "rms_norm",
     "added_to_rms",
     "one_plus",
     1e-6,
     0.0,
     {RefNorm::kRmsNorm, 1e-6, true, true, 1.0}},
    {"prms_norm p=0.5",
     "prms_norm",
     "inside_sqrt",
     "as_stored",
     1e-5,
     0.5,
     {RefNorm::kPartialRmsNorm, 1e-5, false, false, 0.5}},
    {"layer_norm, added_to_rms, one_plus",
     "layer_norm",
     "added_to_rms",
     "one_plus",
     -1.0,
     0.0,
     {RefNorm::kLayerNorm, 1e-5, true, true, 1.0}},
    {"none", nullptr, nullptr, nullptr, -1.0, 0.0, {RefNorm::kNone}},
};

void set_norm_attributes(OneNodeHarness& node, const NormCase& c) {
  if (c.norm != nullptr) node.attribute("norm", std::string(c.norm));
  if (c.eps_placement != nullptr) node.attribute("eps_placement", std::string(c.eps_placement));
  if (c.gain_convention != nullptr) {
    node.attribute("gain_convention", std::string(c.gain_convention));
  }
  if (c.eps >= 0.0) node.attribute("eps", c.eps);
  if (c.p > 0.0) node.attribute("p", c.p);
}

std::vector<float> as_stored(const std::vector<float>& values, DataType dtype) {
  if (dtype != DataType::kBF16) return values;
  std::vector<float> rounded(values.size());
  for (size_t i = 0; i < values.size(); ++i) rounded[i] = bf16_to_float(round_to_bf16(values[i]));
  return rounded;
}

std::vector<float> gains(size_t n, const RefNormConvention& c, uint32_t seed) {
  return c.gain_one_plus ? uniform_floats(n, -0.3f, 0.3f, seed)
                         : uniform_floats(n, 0.7f, 1.3f, seed);
}

void add_optional_weight(OneNodeHarness& node, const std::string& name, Shape shape,
                         const std::vector<float>& values) {
  if (values.empty()) {
    node.absent_input();
  } else {
    node.weight(name, std::move(shape), values);
  }
}

std::string compare_scaled(const char* what, const std::vector<float>& got,
                           const std::vector<double>& ref, size_t cols, double tolerance,
                           double* max_ratio) {
  double scale = 0.0;
  for (double e : ref) scale = std::max(scale, std::fabs(e));
  const double tol = std::max(tolerance * scale, 1e-30);
  return compare_within(
      what, got, ref, cols, [&](size_t) { return tol; }, max_ratio);
}

}  // namespace normrt::testing
