// The activation family's variant list: one entry per compiled kernel, in
// order of preference within an ISA (kernels/common/kernel_variant.h).
// NORMRT_HAVE_<ISA> says which per-ISA translation units this build compiled
// (normrt_add_kernel_family in kernels/CMakeLists.txt).

#include "kernels/activation/activation_variants.h"

namespace normrt {

const std::vector<ActivationVariant>& activation_variants() {
  static const std::vector<ActivationVariant> variants = {
      {{"f32_activation__scalar", Isa::kScalar}, detail::activation_row_scalar},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_activation__avx2", Isa::kAvx2}, detail::activation_row_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_activation__avx512", Isa::kAvx512}, detail::activation_row_avx512},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_activation__neon", Isa::kNeon}, detail::activation_row_neon},
#endif
  };
  return variants;
}

}  // namespace normrt
