#include "kernels/norm/norm_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace normrt::detail {

Moments moments_from_deviations(size_t count, double shift, double sum_dev, double sum_dev_sq) {
  Moments m;
  m.count = static_cast<double>(count);
  m.safe = std::isfinite(shift) && sum_is_safe(sum_dev_sq);
  const double mean_dev = sum_dev / m.count;
  m.mean = shift + mean_dev;
  m.m2 = std::max(0.0, sum_dev_sq - sum_dev * mean_dev);
  return m;
}

bool shift_was_poor(const Moments& m, double shift) {
  // E[d]² / Var > 8 costs more than 3 bits of the variance.
  const double mean_dev = m.mean - shift;
  return mean_dev * mean_dev * m.count > 8.0 * m.m2;
}

Moments combine(const Moments& a, const Moments& b) {
  if (a.count == 0.0) return b;
  if (b.count == 0.0) return a;
  Moments m;
  m.count = a.count + b.count;
  const double delta = b.mean - a.mean;
  m.mean = a.mean + delta * (b.count / m.count);
  m.m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / m.count);
  m.safe = a.safe && b.safe;
  return m;
}

NormScale norm_scale(const NormParams& params, double mean, double statistic) {
  NormScale s;
  s.scale = static_cast<float>(params.eps_placement == EpsPlacement::kAddedToRms
                                   ? 1.0 / (std::sqrt(statistic) + params.eps)
                                   : 1.0 / std::sqrt(statistic + params.eps));
  // An infinity in the row makes the statistic infinite, and 1/inf = 0 would
  // turn every other output into the bias: a plausible answer from a row that
  // has none. NaN makes the whole row NaN, as norm.h promises.
  if (std::isinf(statistic)) s.scale = std::numeric_limits<float>::quiet_NaN();
  s.mean_hi = static_cast<float>(mean);
  // Dropping the low part moves every output by at most |lo|·scale·|g'|:
  // keep it unless that is far below float resolution.
  const float lo = static_cast<float>(mean - s.mean_hi);
  s.mean_lo = std::fabs(lo) * s.scale > 0x1p-32f ? lo : 0.0f;
  return s;
}

}  // namespace normrt::detail
