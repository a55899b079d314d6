// AVX-512 (F, BW, DQ, CD, VL) instantiation of the recurrent cells' element-wise passes.
#include "kernels/rnn/rnn_gates_simd.h"

namespace normrt::detail {
const RnnGateOps& rnn_gate_ops_avx512() { return RnnGatesSimd<xsimd::avx512bw>::ops(); }
}  // namespace normrt::detail
