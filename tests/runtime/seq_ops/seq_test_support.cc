#include "tests/runtime/seq_ops/seq_test_support.h"

#include <cmath>
#include <random>
#include <sstream>

namespace normrt::testing {

std::vector<float> uniform_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& e : v) e = dist(gen);
  return v;
}

std::string compare_within(const char* what, const std::vector<float>& got,
                           const std::vector<double>& ref, size_t cols,
                           const std::function<double(size_t)>& tol, double* max_ratio) {
  if (got.size() != ref.size()) {
    return std::string(what) + ": got " + std::to_string(got.size()) + " values, expected " +
           std::to_string(ref.size());
  }
  double worst = 0.0;
  std::string failure;
  for (size_t i = 0; i < got.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(got[i]) - ref[i]);
    const double t = tol(i);
    worst = std::max(worst, diff / t);
    if (failure.empty() && !(diff <= t)) {
      std::ostringstream text;
      text.precision(9);
      text << what << "[" << i << "] (row " << i / cols << ", column " << i % cols << "): got "
           << got[i] << ", expected " << ref[i] << ", |diff| " << diff << " > tolerance " << t;
      failure = text.str();
    }
  }
  if (max_ratio != nullptr) *max_ratio = worst;
  return failure;
}

bool mentions(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) {
    if (text.find(part) == std::string::npos) return false;
  }
  return true;
}

}  // namespace normrt::testing
