// The int8 quantization formula (linear_int8.h), in plain scalar code: the
// decision per row (zero, tiny, not finite, or its scale and inverse) shared
// by every kernel, and quantize_int8() for packing and the scalar kernel.
// ISA-free on purpose: the per-ISA kernels call int8_row_scale() rather than
// inline a copy compiled with their flags.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/linear/linear_int8.h"
#include "kernels/linear/linear_variants.h"

namespace normrt {
namespace detail {

Int8RowScale int8_row_scale(uint32_t max_abs_bits) {
  Int8RowScale s;
  if (max_abs_bits >= 0x7f800000u) {  // infinity or NaN
    s.scale = NAN;
    return s;
  }
  float max_abs;
  std::memcpy(&max_abs, &max_abs_bits, sizeof max_abs);
  // Below 127·FLT_MIN the scale would be subnormal (and 127 / max|v| could
  // overflow): such a row counts as zero.
  if (max_abs < 127.0f * FLT_MIN) return s;
  s.scale = max_abs / 127.0f;
  s.inverse = 127.0f / max_abs;
  s.zero = false;
  return s;
}

}  // namespace detail

float quantize_int8(const float* v, size_t count, int8_t* q) {
  uint32_t max_bits = 0;
  for (size_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], sizeof bits);
    bits &= 0x7fffffffu;
    if (bits > max_bits) max_bits = bits;
  }
  const detail::Int8RowScale s = detail::int8_row_scale(max_bits);
  for (size_t i = 0; i < count; ++i) {
    if (s.zero) {
      q[i] = 0;
      continue;
    }
    // rne: nearbyint in the default rounding mode (to nearest, ties to even).
    const float r = std::nearbyint(v[i] * s.inverse);
    q[i] = static_cast<int8_t>(r > 127.0f ? 127.0f : r < -127.0f ? -127.0f : r);
  }
  return s.scale;
}

}  // namespace normrt
