// Compiled with -ffp-contract=off (runtime/ops/CMakeLists.txt): the
// reference sampler in Python rounds every product before the sum.
#include "runtime/ops/mixture_sampler.h"

#include <cmath>

namespace normrt::mixture_sampler {

void sample_point(const float* params, size_t m, uint64_t seed, uint64_t step, float point[3]) {
  const uint64_t first = step * kUniformsPerStep;
  double u[kUniformsPerStep];
  for (uint64_t j = 0; j < kUniformsPerStep; ++j) u[j] = uniform_at(seed, first + j);
  const float* pi = params + 1;
  double total = 0.0;
  for (size_t j = 0; j < m; ++j) total = total + double(pi[j]);
  const double target = u[0] * total;
  size_t k = m - 1;
  double cumulative = 0.0;
  for (size_t j = 0; j < m; ++j) {
    cumulative = cumulative + double(pi[j]);
    if (target < cumulative) {
      k = j;
      break;
    }
  }
  const double z1 = std::sqrt(-2.0 * std::log(1.0 - u[1])) * std::cos(kTwoPi * u[2]);
  const double z2 = std::sqrt(-2.0 * std::log(1.0 - u[3])) * std::cos(kTwoPi * u[4]);
  const double mu1 = params[1 + m + k], mu2 = params[1 + 2 * m + k];
  const double sigma1 = params[1 + 3 * m + k], sigma2 = params[1 + 4 * m + k];
  const double rho = params[1 + 5 * m + k];
  const double x1 = mu1 + sigma1 * z1;
  const double x2 = mu2 + sigma2 * (rho * z1 + std::sqrt(1.0 - rho * rho) * z2);
  point[0] = static_cast<float>(x1);
  point[1] = static_cast<float>(x2);
  point[2] = u[5] < double(params[0]) ? 1.0f : 0.0f;
}

}  // namespace normrt::mixture_sampler
