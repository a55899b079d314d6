// The attention family's variant list: one entry per compiled kernel, in
// order of preference within an ISA (kernels/common/kernel_variant.h).
// NORMRT_HAVE_<ISA> says which per-ISA translation units this build compiled
// (normrt_add_kernel_family in kernels/CMakeLists.txt).

#include "kernels/attention/attention_variants.h"

namespace normrt {

const std::vector<AttentionVariant>& attention_variants() {
  static const std::vector<AttentionVariant> variants = {
      {{"f32_attention__scalar_reference", Isa::kScalar}, detail::attention_reference, nullptr},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_attention__avx2_mr6", Isa::kAvx2},
       detail::attention_avx2,
       detail::attention_exp2_row_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_attention__avx512_mr6", Isa::kAvx512},
       detail::attention_avx512,
       detail::attention_exp2_row_avx512},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_attention__neon_mr6", Isa::kNeon},
       detail::attention_neon,
       detail::attention_exp2_row_neon},
#endif
  };
  return variants;
}

}  // namespace normrt
