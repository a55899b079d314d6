// int8 weights on AVX-VNNI (VEX vpdpbusd on ymm; compiled with -mavxvnni,
// listed only where cpu_has(CpuFeature::kAvxVnni)): the AVX2 panel of 4 ymm
// (32 columns), row blocks of 2. x is stored as qx + 128 and the shift is
// compensated with the column sums, as in linear_int8_avx512vnni.cc.

#include "kernels/linear/linear_int8_ymm.h"

namespace normrt::detail {
namespace {

struct AvxVnniOps : YmmInt8Common<true> {
  using X = __m256i;
  static X x_group(const uint8_t* four) { return _mm256_set1_epi32(static_cast<int>(word(four))); }
  static I dot(I acc, X x, I w) { return _mm256_dpbusd_avx_epi32(acc, x, w); }
};

}  // namespace

static_assert(kAvx2Panel == 4 * 8);
void linear_int8_avxvnni(const LinearArgs& args) { LinearInt8<AvxVnniOps, 4, 2>::run(args); }

}  // namespace normrt::detail
