// AVX2 + FMA instantiation of the recurrent cells' element-wise passes.
#include "kernels/rnn/rnn_gates_simd.h"

namespace normrt::detail {
const RnnGateOps& rnn_gate_ops_avx2() { return RnnGatesSimd<xsimd::fma3<xsimd::avx2>>::ops(); }
}  // namespace normrt::detail
