// The per-shape backend table. Measured with bench_linear (Sapphire Rapids,
// 1 thread, oneDNN 2.6.3, medians of 3; "beyond L2" = f32 weights > 2 MB,
// streamed from DRAM through rotated copies). oneDNN ÷ normrt time:
//
//   m = 1, f32:    0.97-1.8 (normrt at the weight-read floor, 0.96-1.12x, beyond
//                  L2, where both hit DRAM bandwidth; 1.1-1.3x faster in L2)
//   m = 1, bf16:   0.84-1.8 (normrt at the floor beyond L2, 0.4-0.5x its f32
//                  time; in L2 compute bound at ~2x the floor, where oneDNN's
//                  AMX kernel, with bf16-rounded x, is up to 1.2x faster)
//   m = 16, f32:   0.75-1.09, no consistent winner
//   m = 128, f32:  1.1-1.2 for k·n ≤ 256K; 0.69-0.98 above, 0.69-0.77 for
//                  k·n ≥ 4M: oneDNN's GEMM blocks x for L2, normrt's row blocks
//                  stream all of x once per 64-column panel
//   m ≥ 16, bf16:  0.13-0.74: oneDNN's AMX matmul is 1.4-8x faster, but rounds
//                  x to bf16 (~1e-3 relative error)
//
// So normrt by default (it also computes column ranges for fused epilogues);
// oneDNN for f32 with m ≥ 64 and k·n ≥ 1M (≥ 4 MB of weights; m = 64 is
// interpolated between the measured 16 and 128), and for bf16 with m ≥ 16
// where the model accepts bf16 activations.

#include "kernels/linear/linear_backend.h"

namespace normrt {
namespace {

constexpr size_t kOneDnnBf16MinRows = 16;
constexpr size_t kOneDnnF32MinRows = 64;
constexpr size_t kOneDnnF32MinWeights = size_t{1} << 20;  // k·n

}  // namespace

const char* linear_backend_name(LinearBackend backend) {
  return backend == LinearBackend::kNormrt ? "normrt" : "onednn";
}

LinearBackendChoice choose_linear_backend(const LinearBackendQuery& q) {
  if (q.fused_epilogue) {
    return {LinearBackend::kNormrt, "fused epilogue: needs normrt's column-range kernel"};
  }
  if (!q.onednn_available) return {LinearBackend::kNormrt, "oneDNN backend not built"};
  if (q.type == WeightType::kF32) {
    if (q.m >= kOneDnnF32MinRows && q.k * q.n >= kOneDnnF32MinWeights) {
      return {LinearBackend::kOneDnn, "f32, m >= 64, k*n >= 1M: oneDNN's GEMM 1.05-1.45x faster"};
    }
    return {LinearBackend::kNormrt, "f32: normrt at the read floor for m = 1, on par for small m"};
  }
  if (q.m < kOneDnnBf16MinRows) {
    return {LinearBackend::kNormrt, "bf16, m < 16: memory bound, normrt at the read floor"};
  }
  if (!q.allow_bf16_activations) {
    return {LinearBackend::kNormrt,
            "bf16, m >= 16: oneDNN (AMX) would be faster but rounds x to bf16, and the model "
            "does not allow bf16 activations"};
  }
  return {LinearBackend::kOneDnn, "bf16, m >= 16, bf16 activations allowed: oneDNN AMX matmul"};
}

}  // namespace normrt
