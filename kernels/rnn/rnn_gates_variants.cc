// The recurrent gates' variant list: one entry per compiled set of passes, in
// order of preference within an ISA (kernels/common/kernel_variant.h).
// NORMRT_HAVE_<ISA> says which per-ISA translation units this build compiled
// (normrt_add_kernel_family in kernels/CMakeLists.txt).

#include "kernels/rnn/rnn_gates.h"

namespace normrt::detail {

const std::vector<RnnGatesVariant>& rnn_gates_variants() {
  static const std::vector<RnnGatesVariant> variants = {
      {{"f32_rnn_gates__scalar", Isa::kScalar}, rnn_gate_ops_scalar},
#ifdef NORMRT_HAVE_AVX2
      {{"f32_rnn_gates__avx2", Isa::kAvx2}, rnn_gate_ops_avx2},
#endif
#ifdef NORMRT_HAVE_AVX512
      {{"f32_rnn_gates__avx512", Isa::kAvx512}, rnn_gate_ops_avx512},
#endif
#ifdef NORMRT_HAVE_NEON
      {{"f32_rnn_gates__neon", Isa::kNeon}, rnn_gate_ops_neon},
#endif
  };
  return variants;
}

const RnnGateOps* rnn_gate_ops_for(Isa isa) {
  const RnnGatesVariant* variant = first_variant_for(rnn_gates_variants(), isa);
  return variant != nullptr ? &variant->ops() : nullptr;
}

}  // namespace normrt::detail
