// The int8 quantization formula (linear_int8.h), in plain scalar code: the
// decision per row (zero, tiny, not finite, or its scale, inverse and zero
// point) and the scalar ends of the SIMD kernels' row quantization (the extent of the tail,
// the zero row, the tail and the padding), shared by every kernel, and
// quantize_int8() (weights) and quantize_int8_activations() (the scalar kernel). ISA-free on
// purpose: the per-ISA kernels call these rather than inline a copy compiled with their flags.

#include <algorithm>
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
int8_t quantize_one(float v, const detail::Int8RowScale& s) {
  // |v · inverse| ≤ 254 in a row's own quantization; the first clamp only
  // keeps the sum with z exact for any input.
  const float r = std::nearbyint(v * s.inverse);
  const float clamped = std::clamp(r, -1024.0f, 1024.0f) + static_cast<float>(s.zero_point);
  return static_cast<int8_t>(std::clamp(clamped, -127.0f, 127.0f));
}

size_t padded_row_bytes(size_t k) { return (k + 3) / 4 * 4; }

}  // namespace

namespace detail {

namespace {

float float_of(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

constexpr uint32_t kSign = 0x80000000u, kInfinity = 0x7f800000u;

bool finite(const Int8RowExtent& e) {
  return static_cast<uint32_t>(e.signed_max) < kInfinity && e.unsigned_max < (kSign | kInfinity);
}

// min(0, min v) and max(0, max v) of a finite row.
float lowest(const Int8RowExtent& e) {
  return e.unsigned_max >= kSign ? float_of(e.unsigned_max) : 0.0f;
}
float highest(const Int8RowExtent& e) { return float_of(static_cast<uint32_t>(e.signed_max)); }

}  // namespace

Int8RowScale int8_row_scale(const Int8RowExtent& e) {
  Int8RowScale s;
  if (!finite(e)) {
    s.scale = NAN;
    return s;
  }
  const float max_abs = std::max(highest(e), -lowest(e));
  // Below 127·FLT_MIN the scale would be subnormal (and 127 / max|v| could
  // overflow): such a row counts as zero.
  if (max_abs < 127.0f * FLT_MIN) return s;
  s.scale = max_abs / 127.0f;
  s.inverse = 127.0f / max_abs;
  s.zero = false;
  return s;
}

Int8RowScale int8_activation_scale(const Int8RowExtent& e) {
  Int8RowScale s;
  if (!finite(e)) {
    s.scale = NAN;
    return s;
  }
  const float lo = lowest(e);
  // In double: hi − lo cannot overflow, and each of the two is rounded once.
  const double range = static_cast<double>(highest(e)) - static_cast<double>(lo);
  // Below 254·FLT_MIN the scale would be subnormal (and the inverse could
  // overflow): such a row counts as zero.
  if (range < 254.0 * FLT_MIN) return s;
  s.scale = static_cast<float>(range / 254.0);
  s.inverse = static_cast<float>(254.0 / range);
  const float low = std::nearbyint(lo * s.inverse);  // in [−254, 0]
  s.zero_point = std::clamp(-127 - static_cast<int32_t>(low), -127, 127);
  s.zero = false;
  return s;
}

Int8RowExtent int8_row_extent(const float* x, size_t begin, size_t end, Int8RowExtent e) {
  for (size_t i = begin; i < end; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], sizeof bits);
    e.signed_max = std::max(e.signed_max, static_cast<int32_t>(bits));
    e.unsigned_max = std::max(e.unsigned_max, bits);
  }
  return e;
}

Int8RowScale int8_activation_scale_or_zero(const Int8RowExtent& extent, size_t k, uint8_t zero_code,
                                           uint8_t* q) {
  const Int8RowScale s = int8_activation_scale(extent);
  if (s.zero) std::memset(q, zero_code, padded_row_bytes(k));
  return s;
}

void int8_quantize_tail(const float* x, size_t begin, size_t k, const Int8RowScale& s,
                        uint8_t zero_code, uint8_t* q) {
  for (size_t i = begin; i < k; ++i) q[i] = static_cast<uint8_t>(quantize_one(x[i], s) + zero_code);
  std::memset(q + k, zero_code, padded_row_bytes(k) - k);
}

}  // namespace detail

float quantize_int8(const float* v, size_t count, int8_t* q) {
  const detail::Int8RowScale s = detail::int8_row_scale(detail::int8_row_extent(v, 0, count, {}));
  for (size_t i = 0; i < count; ++i) q[i] = s.zero ? 0 : quantize_one(v[i], s);
  return s.scale;
}

Int8Activations quantize_int8_activations(const float* v, size_t count, int8_t* q) {
  const detail::Int8RowScale s =
      detail::int8_activation_scale(detail::int8_row_extent(v, 0, count, {}));
  for (size_t i = 0; i < count; ++i) q[i] = s.zero ? 0 : quantize_one(v[i], s);
  return {s.scale, s.zero_point};  // 0 for a zero row
}

}  // namespace normrt
