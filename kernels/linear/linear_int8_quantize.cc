// The int8 quantization formula (linear_int8.h), in plain scalar code: the
// decision per row (zero, tiny, not finite, or its scale and inverse) and the
// scalar ends of the SIMD kernels' row quantization (the max over the tail,
// the zero row, the tail and the padding), shared by every kernel, and
// quantize_int8() for packing and the scalar kernel. ISA-free on purpose: the
// per-ISA kernels call these rather than inline a copy compiled with their
// flags.

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/linear/linear_int8.h"
#include "kernels/linear/linear_variants.h"

namespace normrt {
namespace {

// rne: nearbyint in the default rounding mode (to nearest, ties to even), as
// the kernels' vector conversions.
int8_t quantize_one(float v, float inverse) {
  const float r = std::nearbyint(v * inverse);
  return static_cast<int8_t>(r > 127.0f ? 127.0f : r < -127.0f ? -127.0f : r);
}

size_t padded_row_bytes(size_t k) { return (k + 3) / 4 * 4; }

}  // namespace

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

uint32_t int8_max_abs_bits(const float* x, size_t begin, size_t end, uint32_t max_abs_bits) {
  for (size_t i = begin; i < end; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], sizeof bits);
    bits &= 0x7fffffffu;
    if (bits > max_abs_bits) max_abs_bits = bits;
  }
  return max_abs_bits;
}

Int8RowScale int8_row_scale_or_zero(uint32_t max_abs_bits, size_t k, uint8_t zero_code,
                                    uint8_t* q) {
  const Int8RowScale s = int8_row_scale(max_abs_bits);
  if (s.zero) std::memset(q, zero_code, padded_row_bytes(k));
  return s;
}

void int8_quantize_tail(const float* x, size_t begin, size_t k, float inverse, uint8_t zero_code,
                        uint8_t* q) {
  for (size_t i = begin; i < k; ++i)
    q[i] = static_cast<uint8_t>(quantize_one(x[i], inverse) + zero_code);
  std::memset(q + k, zero_code, padded_row_bytes(k) - k);
}

}  // namespace detail

float quantize_int8(const float* v, size_t count, int8_t* q) {
  const detail::Int8RowScale s = detail::int8_row_scale(detail::int8_max_abs_bits(v, 0, count, 0));
  for (size_t i = 0; i < count; ++i) q[i] = s.zero ? 0 : quantize_one(v[i], s.inverse);
  return s.scale;
}

}  // namespace normrt
