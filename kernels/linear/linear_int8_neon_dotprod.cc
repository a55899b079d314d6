// int8 weights on AArch64 with the dot product extension (sdot; compiled
// with -march=armv8.2-a+dotprod, listed only where
// cpu_has(CpuFeature::kNeonDotProd)): panels of 4 q registers (16 columns),
// row blocks of 4 (16 accumulators of the 32 registers). sdot multiplies
// signed by signed bytes, so x needs no shift; the epilogue takes back the
// zero point's term, z·colsum.

#include <arm_neon.h>

#include <cstring>

#include "kernels/linear/linear_int8_simd.h"

namespace normrt::detail {
namespace {

struct NeonDotOps {
  using I = int32x4_t;
  using X = int8x16_t;
  static constexpr size_t kLanes = 4;
  static constexpr uint8_t kZeroCode = 0;
  static constexpr size_t kChunkBytes = 32 * 1024;  // L1

  static I zero() { return vdupq_n_s32(0); }
  static I add(I a, I b) { return vaddq_s32(a, b); }
  static I load(const void* p) { return vld1q_s32(static_cast<const int32_t*>(p)); }
  static void store(void* p, I v) { vst1q_s32(static_cast<int32_t*>(p), v); }
  static X x_group(const uint8_t* four) {
    uint32_t word;
    std::memcpy(&word, four, sizeof word);
    return vreinterpretq_s8_u32(vdupq_n_u32(word));
  }
  static I dot(I acc, X x, I w) { return vdotq_s32(acc, vreinterpretq_s8_s32(w), x); }

  static void finish(I acc, const int32_t* colsum, const float* sw, float sx, int32_t zx,
                     const float* bias, float* y, size_t count) {
    acc = vmlsq_n_s32(acc, vld1q_s32(colsum), zx);
    const float32x4_t scale = vmulq_n_f32(vld1q_f32(sw), sx);
    float32x4_t b = vdupq_n_f32(0.0f);
    if (bias != nullptr) {
      if (count == kLanes) {
        b = vld1q_f32(bias);
      } else {
        float lanes[kLanes] = {};
        std::memcpy(lanes, bias, count * sizeof(float));
        b = vld1q_f32(lanes);
      }
    }
    const float32x4_t out = vfmaq_f32(b, vcvtq_f32_s32(acc), scale);
    if (count == kLanes) {
      vst1q_f32(y, out);
    } else {
      float lanes[kLanes];
      vst1q_f32(lanes, out);
      std::memcpy(y, lanes, count * sizeof(float));
    }
  }

  static Int8RowScale quantize_row(const float* x, size_t k, uint8_t* q) {
    int32x4_t signed_max = vdupq_n_s32(0);
    uint32x4_t unsigned_max = vdupq_n_u32(0);
    size_t i = 0;
    for (; i + 4 <= k; i += 4) {
      const uint32x4_t bits = vreinterpretq_u32_f32(vld1q_f32(x + i));
      signed_max = vmaxq_s32(signed_max, vreinterpretq_s32_u32(bits));
      unsigned_max = vmaxq_u32(unsigned_max, bits);
    }
    const Int8RowExtent extent{vmaxvq_s32(signed_max), vmaxvq_u32(unsigned_max)};
    const Int8RowScale s =
        int8_activation_scale_or_zero(int8_row_extent(x, i, k, extent), k, kZeroCode, q);
    if (s.zero) return s;
    const int32x4_t zero_point = vdupq_n_s32(s.zero_point);
    const int32x4_t bound_lo = vdupq_n_s32(-127), bound_hi = vdupq_n_s32(127);
    auto round4 = [&](const float* p) {  // vcvtnq: to nearest, ties to even
      const int32x4_t r = vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(p), s.inverse));
      return vminq_s32(vmaxq_s32(vaddq_s32(r, zero_point), bound_lo), bound_hi);
    };
    for (i = 0; i + 16 <= k; i += 16) {
      const int16x8_t ab = vcombine_s16(vqmovn_s32(round4(x + i)), vqmovn_s32(round4(x + i + 4)));
      const int16x8_t cd =
          vcombine_s16(vqmovn_s32(round4(x + i + 8)), vqmovn_s32(round4(x + i + 12)));
      vst1q_s8(reinterpret_cast<int8_t*>(q + i), vcombine_s8(vqmovn_s16(ab), vqmovn_s16(cd)));
    }
    int8_quantize_tail(x, i, k, s, kZeroCode, q);
    return s;
  }
};

}  // namespace

static_assert(kNeonPanel == 4 * 4);
void linear_int8_neon_dotprod(const LinearArgs& args) { LinearInt8<NeonDotOps, 4, 4>::run(args); }

}  // namespace normrt::detail
