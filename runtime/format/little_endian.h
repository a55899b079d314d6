#pragma once
// Little-endian loads and stores at any alignment (byte by byte, so they are
// correct on any host and never form a misaligned pointer). Callers check bounds.
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
// Weights are used in place from the mapped file, so the host must read the
// file's little-endian data natively.
#error "normrt's model files are little-endian; big-endian hosts are not supported"
#endif

namespace normrt::little_endian {

template <class T>
T load(const std::byte* src) {
  uint64_t bits = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    bits |= uint64_t(std::to_integer<uint8_t>(src[i])) << (8 * i);
  T value;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&value, &bits, 8);  // also reinterprets a double's bits
  } else {
    value = static_cast<T>(bits);
  }
  return value;
}

template <class T>
void store(std::byte* dst, T value) {
  uint64_t bits = 0;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&bits, &value, 8);
  } else {
    bits = static_cast<uint64_t>(value);
  }
  for (size_t i = 0; i < sizeof(T); ++i) dst[i] = std::byte(uint8_t(bits >> (8 * i)));
}

}  // namespace normrt::little_endian
