#include "runtime/ops/relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace normrt {

int64_t relative_position_bucket(int64_t relative, int64_t num_buckets, int64_t max_distance) {
  const int64_t half = num_buckets / 2;
  const int64_t distance = -relative;  // transformers' n = query − key
  const int64_t base = distance < 0 ? half : 0;
  const int64_t n = std::llabs(distance);
  const int64_t max_exact = half / 2;
  if (n < max_exact) return base + n;
  // float throughout, as torch computes log(n.float() / max_exact) / log(...)
  // · (half − max_exact) in float32 before truncating to long.
  const float ratio = std::log(static_cast<float>(n) / static_cast<float>(max_exact)) /
                      static_cast<float>(std::log(static_cast<double>(max_distance) /
                                                  static_cast<double>(max_exact))) *
                      static_cast<float>(half - max_exact);
  const int64_t large = max_exact + static_cast<int64_t>(ratio);
  return base + std::min(large, half - 1);
}

std::vector<float> relative_position_table(const float* bias, size_t heads, size_t max_s,
                                           int64_t num_buckets, int64_t max_distance) {
  const size_t width = 2 * max_s - 1;
  std::vector<float> table(heads * width);
  for (size_t c = 0; c < width; ++c) {
    const int64_t relative = static_cast<int64_t>(c) - static_cast<int64_t>(max_s - 1);
    const size_t bucket =
        static_cast<size_t>(relative_position_bucket(relative, num_buckets, max_distance));
    for (size_t h = 0; h < heads; ++h) table[h * width + c] = bias[bucket * heads + h];
  }
  return table;
}

}  // namespace normrt
