#include "tests/support/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace normrt::test {

double worst_of(double worst, double error) {
  if (std::isnan(worst) || std::isnan(error)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(worst, error);
}

Comparison compare(const float* got, const double* want, size_t n, double atol, double rtol) {
  Comparison c;
  double scale = 0;
  for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(want[i]));
  for (size_t i = 0; i < n; ++i) {
    const double error = std::fabs(got[i] - want[i]);
    c.worst = worst_of(c.worst, error);
    if (c.first_failure.empty() && !(error <= atol + rtol * std::fabs(want[i]))) {
      std::ostringstream message;
      message << "index " << i << " got " << got[i] << ", want " << want[i] << ", |diff| " << error
              << " > " << atol << " + " << rtol << "·|want|";
      c.first_failure = message.str();
    }
  }
  c.relative = c.worst / scale;
  return c;
}

Comparison compare(const std::vector<float>& got, const std::vector<double>& want, double atol,
                   double rtol) {
  if (got.size() != want.size()) {
    Comparison c;
    c.worst = c.relative = std::numeric_limits<double>::infinity();
    c.first_failure =
        std::to_string(got.size()) + " values, expected " + std::to_string(want.size());
    return c;
  }
  return compare(got.data(), want.data(), got.size(), atol, rtol);
}

Comparison compare_rows(const float* got, const float* want, size_t rows, size_t cols,
                        double rtol) {
  Comparison c;
  for (size_t r = 0; r < rows; ++r) {
    const float* g = got + r * cols;
    const float* w = want + r * cols;
    double scale = 0;
    for (size_t j = 0; j < cols; ++j) scale = std::max(scale, std::fabs(double(w[j])));
    if (!(scale > 0)) {
      if (c.first_failure.empty())
        c.first_failure = "row " + std::to_string(r) + " of want is all zero: no scale to bound by";
      continue;
    }
    for (size_t j = 0; j < cols; ++j) {
      const double error = std::fabs(double(g[j]) - w[j]);
      c.worst = worst_of(c.worst, error);
      c.relative = worst_of(c.relative, error / scale);
      if (c.first_failure.empty() && !(error <= rtol * scale)) {
        std::ostringstream message;
        message << "row " << r << " column " << j << " got " << g[j] << ", want " << w[j]
                << ", |diff| = " << error << " > " << rtol << " * " << scale;
        c.first_failure = message.str();
      }
    }
  }
  return c;
}

}  // namespace normrt::test
