// The packed int8 layout as data (linear_int8.h, version 1): writing it from
// quantized weights, reading it back, and checking a buffer someone else
// wrote (a mapped model file). ISA-free plain loops, run at load.

#include <cmath>
#include <cstring>
#include <string>

#include "kernels/linear/linear_int8.h"
#include "kernels/linear/linear_variants.h"

namespace normrt {
namespace {

std::string num(size_t value) { return std::to_string(value); }

// Where column c (within its panel) of one panel keeps its bytes.
struct Int8Panel {
  size_t groups, width;  // G, P
  size_t weight(size_t c, size_t i) const { return 4 * width * (i / 4) + 4 * c + i % 4; }
  size_t scale(size_t c) const { return 4 * width * groups + 4 * c; }
  size_t colsum(size_t c) const { return 4 * width * groups + 4 * width + 4 * c; }
  size_t used() const { return 4 * width * groups + 8 * width; }
};

Status check_size(const char* who, size_t n, size_t k, size_t panel_width, size_t bytes) {
  Expected<size_t> expected = packed_weights_bytes(n, k, WeightType::kInt8, panel_width);
  if (!expected) return Status::error(std::string(who) + ": " + expected.status().message());
  if (bytes != *expected) {
    return Status::error(std::string(who) + ": " + num(bytes) + " bytes, expected " +
                         num(*expected) + " for " + num(n) + " x " + num(k) +
                         " int8 in panels of " + num(panel_width));
  }
  return Status::ok();
}

}  // namespace

namespace detail {
size_t int8_panel_bytes(size_t k, size_t panel_width) {
  const Int8Panel layout{(k + 3) / 4, panel_width};
  return (layout.used() + 63) / 64 * 64;
}
}  // namespace detail

Status pack_weights_int8_into(const int8_t* q, const float* scales, size_t n, size_t k,
                              size_t panel_width, void* packed, size_t bytes) {
  NORMRT_RETURN_IF_ERROR(check_size("pack_weights_int8", n, k, panel_width, bytes));
  if (q == nullptr || scales == nullptr || packed == nullptr) {
    return Status::error("pack_weights_int8: q, scales or the output is null");
  }
  for (size_t c = 0; c < n; ++c) {
    if (!std::isfinite(scales[c]) || !(scales[c] >= 0.0f)) {
      return Status::error("pack_weights_int8: scale of column " + num(c) + " is " +
                           std::to_string(scales[c]) + " (must be finite and >= 0)");
    }
    for (size_t i = 0; i < k; ++i) {
      if (q[c * k + i] == -128) {
        return Status::error("pack_weights_int8: q[" + num(c) + "][" + num(i) +
                             "] is -128 (symmetric int8 weights are in [-127, 127])");
      }
    }
  }
  const Int8Panel layout{(k + 3) / 4, panel_width};
  const size_t panel_bytes = detail::int8_panel_bytes(k, panel_width);
  auto* out = static_cast<std::byte*>(packed);
  std::memset(out, 0, bytes);
  for (size_t c = 0; c < n; ++c) {
    std::byte* panel = out + (c / panel_width) * panel_bytes;
    const size_t col = c % panel_width;
    int32_t sum = 0;
    for (size_t i = 0; i < k; ++i) {
      const int8_t value = q[c * k + i];
      std::memcpy(panel + layout.weight(col, i), &value, 1);
      sum += value;
    }
    std::memcpy(panel + layout.scale(col), &scales[c], 4);
    std::memcpy(panel + layout.colsum(col), &sum, 4);
  }
  return Status::ok();
}

Status unpack_weights_int8(const void* packed, size_t bytes, size_t n, size_t k, size_t panel_width,
                           int8_t* q, float* scales) {
  NORMRT_RETURN_IF_ERROR(check_size("unpack_weights_int8", n, k, panel_width, bytes));
  const Int8Panel layout{(k + 3) / 4, panel_width};
  const size_t panel_bytes = detail::int8_panel_bytes(k, panel_width);
  const auto* in = static_cast<const std::byte*>(packed);
  for (size_t c = 0; c < n; ++c) {
    const std::byte* panel = in + (c / panel_width) * panel_bytes;
    const size_t col = c % panel_width;
    for (size_t i = 0; i < k; ++i) std::memcpy(&q[c * k + i], panel + layout.weight(col, i), 1);
    std::memcpy(&scales[c], panel + layout.scale(col), 4);
  }
  return Status::ok();
}

Status validate_int8_packed(const void* packed, size_t bytes, size_t n, size_t k,
                            size_t panel_width, size_t* bad_offset) {
  size_t ignored = 0;
  size_t& at = bad_offset != nullptr ? *bad_offset : ignored;
  at = 0;
  NORMRT_RETURN_IF_ERROR(check_size("int8 weights", n, k, panel_width, bytes));
  const Int8Panel layout{(k + 3) / 4, panel_width};
  const size_t panel_bytes = detail::int8_panel_bytes(k, panel_width);
  const size_t panels = (n + panel_width - 1) / panel_width;
  const auto* in = static_cast<const std::byte*>(packed);
  for (size_t p = 0; p < panels; ++p) {
    const std::byte* panel = in + p * panel_bytes;
    const std::string where = "int8 weights: panel " + num(p) + ", column ";
    for (size_t col = 0; col < panel_width; ++col) {
      const size_t c = p * panel_width + col;
      const bool real = c < n;
      int32_t sum = 0;
      for (size_t i = 0; i < 4 * layout.groups; ++i) {
        int8_t value;
        std::memcpy(&value, panel + layout.weight(col, i), 1);
        if (value == -128 || (value != 0 && (!real || i >= k))) {
          at = p * panel_bytes + layout.weight(col, i);
          return Status::error(where + num(c) + ", k " + num(i) + ": weight " +
                               std::to_string(value) +
                               (value == -128 ? " is -128" : " in the zero padding"));
        }
        sum += value;
      }
      float scale;
      int32_t stored;
      std::memcpy(&scale, panel + layout.scale(col), 4);
      std::memcpy(&stored, panel + layout.colsum(col), 4);
      if (!std::isfinite(scale) || !(scale >= 0.0f) || (!real && scale != 0.0f)) {
        at = p * panel_bytes + layout.scale(col);
        return Status::error(where + num(c) + ": scale " + std::to_string(scale) +
                             (real ? " (must be finite and >= 0)" : " in the padding"));
      }
      if (stored != sum) {
        at = p * panel_bytes + layout.colsum(col);
        return Status::error(where + num(c) + ": column sum " + std::to_string(stored) +
                             ", the weights sum to " + std::to_string(sum));
      }
    }
    for (size_t b = layout.used(); b < panel_bytes; ++b) {
      if (panel[b] != std::byte{0}) {
        at = p * panel_bytes + b;
        return Status::error("int8 weights: panel " + num(p) + ": padding byte " + num(b) +
                             " is not zero");
      }
    }
  }
  return Status::ok();
}

}  // namespace normrt
