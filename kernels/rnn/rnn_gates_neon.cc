// AArch64 Advanced SIMD (NEON) instantiation of the recurrent cells' element-wise passes.
#include "kernels/rnn/rnn_gates_simd.h"

namespace normrt::detail {
const RnnGateOps& rnn_gate_ops_neon() { return RnnGatesSimd<xsimd::neon64>::ops(); }
}  // namespace normrt::detail
