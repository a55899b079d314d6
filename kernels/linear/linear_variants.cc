// The linear family's variant list: one entry per compiled kernel
// (kernels/common/kernel_variant.h). NORMRT_HAVE_<ISA> says which per-ISA
// translation units this build compiled (normrt_add_kernel_family in
// kernels/CMakeLists.txt).
//
// Within one (ISA, weight type) the first runnable entry is what
// pack_weights(.., isa) picks. int8: the vpdpbusd / sdot kernels come first;
// each needs a CPU extension, and choose_linear_variant() says which one it
// lacked when it falls back. bf16 on AVX-512: widening bf16 → f32 in
// registers and FMA beats the vdpbf16ps kernel (3 dot products to keep x in
// float precision) at every measured shape, so it comes first; see
// kernels/linear/linear_avx512bf16.cc.

#include "kernels/linear/linear_variants.h"

namespace normrt {
namespace {

using detail::kAvx2Panel;
using detail::kAvx512Panel;
using detail::kNeonPanel;
using detail::kScalarPanel;
using WT = WeightType;

}  // namespace

const std::vector<LinearVariant>& linear_variants() {
  static const std::vector<LinearVariant> variants = {
      {{"f32_gemv__scalar", Isa::kScalar}, WT::kF32, kScalarPanel, detail::linear_f32_scalar},
      {{"bf16_gemv__scalar", Isa::kScalar}, WT::kBF16, kScalarPanel, detail::linear_bf16_scalar},
      {{"int8_gemv__scalar", Isa::kScalar}, WT::kInt8, kScalarPanel, detail::linear_int8_scalar},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_gemv__avx2_p32", Isa::kAvx2}, WT::kF32, kAvx2Panel, detail::linear_f32_avx2},
      {{"bf16_gemv__avx2_p32", Isa::kAvx2}, WT::kBF16, kAvx2Panel, detail::linear_bf16_avx2},
#endif
#ifdef NORMRT_HAVE_AVXVNNI
      {{"int8_gemv__avxvnni_p32", Isa::kAvx2, CpuFeature::kAvxVnni},
       WT::kInt8,
       kAvx2Panel,
       detail::linear_int8_avxvnni},
#endif
#ifdef NORMRT_HAVE_AVX2
      {{"int8_gemv__avx2_p32", Isa::kAvx2}, WT::kInt8, kAvx2Panel, detail::linear_int8_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_gemv__avx512_p64", Isa::kAvx512}, WT::kF32, kAvx512Panel, detail::linear_f32_avx512},
      {{"bf16_gemv__avx512_p64", Isa::kAvx512},
       WT::kBF16,
       kAvx512Panel,
       detail::linear_bf16_avx512},
#endif
#ifdef NORMRT_HAVE_AVX512VNNI
      {{"int8_gemv__avx512vnni_p64", Isa::kAvx512, CpuFeature::kAvx512Vnni},
       WT::kInt8,
       kAvx512Panel,
       detail::linear_int8_avx512vnni},
#endif
#ifdef NORMRT_HAVE_AVX512BF16
      {{"bf16_gemv__avx512bf16_p64_dot3", Isa::kAvx512, CpuFeature::kAvx512Bf16},
       WT::kBF16,
       kAvx512Panel,
       detail::linear_bf16_avx512bf16},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_gemv__neon_p16", Isa::kNeon}, WT::kF32, kNeonPanel, detail::linear_f32_neon},
      {{"bf16_gemv__neon_p16", Isa::kNeon}, WT::kBF16, kNeonPanel, detail::linear_bf16_neon},
#endif
#ifdef NORMRT_HAVE_NEON_DOTPROD
      {{"int8_gemv__neondot_p16", Isa::kNeon, CpuFeature::kNeonDotProd},
       WT::kInt8,
       kNeonPanel,
       detail::linear_int8_neon_dotprod},
#endif
  };
  return variants;
}

}  // namespace normrt
