// int8 weights on AVX2 without VNNI: panels of 4 ymm (32 columns), row
// blocks of 2 (8 accumulators, 4 weight vectors, x's magnitude and sign,
// the ones of vpmaddwd: 15 of the 16 ymm).
//
// vpmaddubsw multiplies unsigned by signed bytes and adds adjacent pairs
// into int16 with saturation. Saturation is avoided by design: x enters as
// |qx| (unsigned) and the weights take x's sign (vpsignb), so each pair is
// |qx_a|·±qw_a + |qx_b|·±qw_b with every factor at most 127 in magnitude
// (neither side is ever −128): at most 2·127·127 = 32258 < 32767. vpmaddwd
// with ones then adds the pairs into int32 lanes of 4 k, the layout of
// vpdpbusd.

#include "kernels/linear/linear_int8_ymm.h"

namespace normrt::detail {
namespace {

struct Avx2Int8Ops : YmmInt8Common<false> {
  struct X {
    __m256i magnitude, sign;  // |qx| and qx of one group, broadcast
  };
  static X x_group(const uint8_t* four) {
    const __m256i b = _mm256_set1_epi32(static_cast<int>(word(four)));
    return {_mm256_abs_epi8(b), b};
  }
  static I dot(I acc, const X& x, I w) {
    const __m256i pairs = _mm256_maddubs_epi16(x.magnitude, _mm256_sign_epi8(w, x.sign));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
  }
};

}  // namespace

static_assert(kAvx2Panel == 4 * 8);
void linear_int8_avx2(const LinearArgs& args) { LinearInt8<Avx2Int8Ops, 4, 2>::run(args); }

}  // namespace normrt::detail
