// The norm family's variant lists: one entry per compiled kernel, in order of
// preference within an ISA (kernels/common/kernel_variant.h). NORMRT_HAVE_<ISA>
// says which per-ISA translation units this build compiled
// (normrt_add_kernel_family in kernels/CMakeLists.txt).

#include "kernels/norm/norm_variants.h"

#include "kernels/norm/norm_row_ops.h"

namespace normrt {

const std::vector<NormVariant>& norm_variants() {
  static const std::vector<NormVariant> variants = {
      {{"f32_norm__scalar", Isa::kScalar}, detail::norm_rows_scalar, detail::norm_row_ops_scalar},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_norm__avx2", Isa::kAvx2}, detail::norm_rows_avx2, detail::norm_row_ops_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_norm__avx512", Isa::kAvx512}, detail::norm_rows_avx512, detail::norm_row_ops_avx512},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_norm__neon", Isa::kNeon}, detail::norm_rows_neon, detail::norm_row_ops_neon},
#endif
  };
  return variants;
}

const std::vector<NormSpatialVariant>& norm_spatial_variants() {
  static const std::vector<NormSpatialVariant> variants = {
      {{"f32_norm_spatial__scalar", Isa::kScalar}, detail::norm_spatial_scalar},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_norm_spatial__avx2", Isa::kAvx2}, detail::norm_spatial_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_norm_spatial__avx512", Isa::kAvx512}, detail::norm_spatial_avx512},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_norm_spatial__neon", Isa::kNeon}, detail::norm_spatial_neon},
#endif
  };
  return variants;
}

}  // namespace normrt
