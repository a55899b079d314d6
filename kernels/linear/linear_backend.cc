// The per-shape backend table. Measured with bench_linear (1 thread, oneDNN
// 2.6.3; "beyond L2" = f32 weights > 2 MB, streamed from DRAM through rotated
// copies). oneDNN ÷ normrt time, both calls alternating in one loop:
//
//   m = 1, f32:    1.03-2.2 (normrt at 1.00-1.06x the weight-read floor beyond
//                  L2; 1.14-1.50 in L2)
//   m = 1, bf16:   1.28-3.5 without AMX; with AMX (an earlier Sapphire Rapids
//                  host) 0.84-1.8: in L2 oneDNN's AMX kernel, with
//                  bf16-rounded x, was up to 1.2x faster
//   m = 128, f32:  0.97-1.18 (fused LayerNorm against matmul + LayerNorm;
//                  normrt's 6-row blocks, the next chunk prefetched by all
//                  row blocks); oneDNN is ahead only at 512x512 (0.97-0.985:
//                  its GEMM at the FMA peak), by less than the run-to-run
//                  noise, and could not run the fused epilogue
//   m ≥ 16, bf16:  with AMX 0.13-0.74 (oneDNN 1.4-8x faster, but x rounded to
//                  bf16, ~1e-3 relative error); without AMX oneDNN runs
//                  gemm:jit, 3.6-5.3x slower than normrt at m = 16 and 128
//
//   int8:          oneDNN's s8 matmul (bench_linear_int8, x quantized
//                  beforehand and not timed) ÷ normrt: 1.04-1.13 at m = 1
//                  beyond L2, 1.4-1.9 in L2, 0.79-1.03 at m = 32 and 128
//
// So normrt (it also computes column ranges for fused epilogues), except bf16
// with m ≥ 16 on a CPU with AMX where the model accepts bf16 activations.

#include "kernels/linear/linear_backend.h"

#include <cstdlib>
#include <string>

namespace normrt {
namespace {

constexpr size_t kOneDnnBf16MinRows = 16;

}  // namespace

const char* linear_backend_name(LinearBackend backend) {
  return backend == LinearBackend::kNormrt ? "normrt" : "onednn";
}

LinearBackendChoice choose_linear_backend(const LinearBackendQuery& q) {
  const bool forced_onednn = q.forced && q.forced_backend == LinearBackend::kOneDnn;
  if (q.fused_epilogue) {
    return {LinearBackend::kNormrt,
            forced_onednn ? "NORMRT_LINEAR_BACKEND=onednn, but a fused epilogue needs normrt's "
                            "column-range kernel"
                          : "fused epilogue: needs normrt's column-range kernel"};
  }
  if (!q.onednn_available) {
    return {LinearBackend::kNormrt, forced_onednn
                                        ? "NORMRT_LINEAR_BACKEND=onednn, but the oneDNN backend is "
                                          "not built"
                                        : "oneDNN backend not built"};
  }
  if (forced_onednn && q.type == WeightType::kInt8) {
    return {LinearBackend::kNormrt,
            "NORMRT_LINEAR_BACKEND=onednn, but int8 has no oneDNN path: normrt"};
  }
  if (q.forced) {
    return {q.forced_backend, q.forced_backend == LinearBackend::kOneDnn
                                  ? "forced by NORMRT_LINEAR_BACKEND=onednn"
                                  : "forced by NORMRT_LINEAR_BACKEND=normrt"};
  }
  if (q.type == WeightType::kInt8) {
    return {LinearBackend::kNormrt,
            "int8: OneDnnLinear has no int8 path (oneDNN's s8 matmul measured slower at m = 1, "
            "on par at m >= 32, and it scales x per tensor, not per row)"};
  }
  if (q.type == WeightType::kF32) {
    return {LinearBackend::kNormrt,
            "f32: normrt at the read floor for m = 1, within 3% of or faster than oneDNN at "
            "m = 128"};
  }
  if (q.m < kOneDnnBf16MinRows) {
    return {LinearBackend::kNormrt, "bf16, m < 16: memory bound, normrt at the read floor"};
  }
  if (!q.amx_bf16) {
    return {LinearBackend::kNormrt, "bf16, m >= 16, no AMX: oneDNN's gemm:jit is 3.6-5.3x slower"};
  }
  if (!q.allow_bf16_activations) {
    return {LinearBackend::kNormrt,
            "bf16, m >= 16: oneDNN (AMX) would be faster but rounds x to bf16, and the model "
            "does not allow bf16 activations"};
  }
  return {LinearBackend::kOneDnn, "bf16, m >= 16, AMX, bf16 activations allowed: oneDNN matmul"};
}

Expected<bool> forced_linear_backend(LinearBackend* backend) {
  static const std::string value = [] {
    const char* text = std::getenv("NORMRT_LINEAR_BACKEND");
    return std::string(text != nullptr ? text : "");
  }();
  if (value.empty()) return false;
  if (value == "normrt" || value == "onednn") {
    *backend = value == "normrt" ? LinearBackend::kNormrt : LinearBackend::kOneDnn;
    return true;
  }
  return Status::error("NORMRT_LINEAR_BACKEND: expected normrt or onednn, found '" + value + "'");
}

}  // namespace normrt
