#include "base/bf16.h"

#include <cstring>

namespace normrt {

uint16_t bf16_from_float(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN: keep sign and payload top, quiet
  }
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit.
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float float_from_bf16(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

void floats_from_bf16(const void* bits, size_t count, float* out) {
  const auto* bytes = static_cast<const unsigned char*>(bits);
  for (size_t i = 0; i < count; ++i) {
    uint16_t value;
    std::memcpy(&value, bytes + 2 * i, sizeof value);  // little-endian host
    const uint32_t widened = static_cast<uint32_t>(value) << 16;
    std::memcpy(out + i, &widened, sizeof widened);
  }
}

}  // namespace normrt
