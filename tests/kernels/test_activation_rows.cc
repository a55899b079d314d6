// The row kernels over every length 0..70 (every tail of every vector
// width, several whole vectors), misaligned pointers and in place: each
// output must be bit-identical to the same ISA's output for that value in one
// long call (the kernels are element-wise, so position, length and alignment
// must not matter), and nothing outside y may be written.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/activation/activation.h"
#include "tests/kernels/activation_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kMaxLength = 70;
constexpr size_t kGuard = 32;                  // floats of canary on each side
constexpr uint32_t kCanaryBits = 0x7FC0DEADu;  // a NaN no kernel produces
constexpr size_t kOffsets[] = {0, 1, 3, 7};    // floats past a 64-byte boundary

float canary() {
  float f;
  std::memcpy(&f, &kCanaryBits, sizeof f);
  return f;
}

bool is_canary(float f) { return std::memcmp(&f, &kCanaryBits, sizeof f) == 0; }

// A 64-byte-aligned float buffer with room for guards and offsets.
struct Buffer {
  std::vector<float> storage = std::vector<float>(kMaxLength + 2 * kGuard + 32);
  float* base() {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    return reinterpret_cast<float*>((p + 63) & ~uintptr_t{63}) + kGuard;
  }
};

// Inputs cycling through signs, magnitudes, tails and special values.
std::vector<float> row_inputs() {
  std::vector<float> all = activation_inputs();
  std::vector<float> picked;
  for (size_t i = 0; picked.size() < kMaxLength; i += all.size() / kMaxLength + 1) {
    picked.push_back(all[i % all.size()]);
  }
  picked[5] = -INFINITY;
  picked[17] = std::nanf("");
  picked[33] = -100.0f;
  picked[64] = 1e30f;
  return picked;
}

TEST_CASE("activation row kernels: every length 0..70, misaligned and in place, write only y") {
  const std::vector<float> x = row_inputs();
  for (const ActivationVariant* variant : activation_variants_under_test()) {
    const ActivationKernel kernel = variant->kernel;
    for (Activation activation : kAllActivations) {
      std::vector<float> expected(kMaxLength);
      kernel(activation, kTestAlpha, x.data(), expected.data(), kMaxLength);
      size_t failures = 0;
      for (size_t n = 0; n <= kMaxLength; ++n) {
        for (size_t x_offset : kOffsets) {
          for (size_t y_offset : kOffsets) {
            for (bool in_place : {false, true}) {
              if (in_place && x_offset != y_offset) continue;
              Buffer src_buffer, dst_buffer;
              float* src = src_buffer.base() + x_offset;
              float* dst = in_place ? src : dst_buffer.base() + y_offset;
              for (float& f : src_buffer.storage) f = canary();
              for (float& f : dst_buffer.storage) f = canary();
              std::memcpy(src, x.data(), n * sizeof(float));
              kernel(activation, kTestAlpha, src, dst, n);
              INFO(variant->name << " " << label(activation) << " n=" << n
                                 << " x_offset=" << x_offset << " y_offset=" << y_offset
                                 << (in_place ? " in place" : ""));
              for (size_t i = 0; i < n; ++i) {
                if (!same_float(dst[i], expected[i]) && failures++ < 3) {
                  FAIL_CHECK("index " << i << " (x = " << x[i] << "): got " << dst[i]
                                      << ", the long call gave " << expected[i]);
                }
              }
              // Guards: everything but dst[0, n) (and src[0, n) in place) untouched.
              for (Buffer* b : {&src_buffer, &dst_buffer}) {
                for (float& f : b->storage) {
                  const bool in_dst = &f >= dst && &f < dst + n;
                  const bool in_src = &f >= src && &f < src + n;
                  if (in_dst || (in_src && !in_place) || is_canary(f)) continue;
                  if (failures++ < 3) {
                    FAIL_CHECK("wrote outside y at float " << (&f - dst) << " relative to y");
                  }
                }
              }
              // Not in place: x is read-only.
              if (!in_place) {
                for (size_t i = 0; i < n; ++i) {
                  if (!same_float(src[i], x[i]) && failures++ < 3) {
                    FAIL_CHECK("x[" << i << "] changed");
                  }
                }
              }
            }
          }
        }
      }
      CHECK_MESSAGE(failures == 0,
                    variant->name << " " << label(activation) << ": " << failures << " failures");
    }
  }
}

}  // namespace
}  // namespace normrt::testing
