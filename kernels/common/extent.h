#pragma once
// The memory a strided operand spans, for aliasing checks in validators.

#include <cstddef>
#include <cstdint>

namespace normrt {

/// Bytes [begin, end) of an operand.
struct Extent {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

/// The extent of `rows` rows of `n` floats, `stride` floats apart (rows ≥ 1).
inline Extent extent_of(const float* base, size_t rows, size_t stride, size_t n) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(base);
  return {begin, begin + ((rows - 1) * stride + n) * sizeof(float)};
}

inline bool overlap(Extent a, Extent b) { return a.begin < b.end && b.begin < a.end; }

}  // namespace normrt
