#pragma once
// The linear layer y = x · Wᵀ + b on oneDNN's matmul primitive, for one fixed
// shape: a backend beside normrt's own kernels (kernels/linear/linear.h), and
// the competitor in bench_linear. dnnl.hpp stays out of this header.
//
// Weights: float W (n, k), row-major (PyTorch's layout), reordered once at
// create() into the layout oneDNN prefers for this shape (format_tag::any).
// bf16 weights: oneDNN 2.6 has no float × bf16 matmul, so run() also converts
// x to bf16 (a reorder, timed as part of the call). Rounding x to bf16 costs
// ~1e-3 relative error: this backend does NOT meet linear.h's accuracy
// contract for bf16 and may be chosen only where the caller accepts bf16
// activations (LinearBackendQuery::allow_bf16_activations).
//
// Threads: oneDNN's own (OpenMP, kernels/onednn/onednn_threads.h), bounded
// per call: one for run(), run_rows' `threads` (a session's) otherwise. Left
// unbounded, a one-thread session ran them on every CPU of the process. A
// matmul is made for one thread, so an implementation that fixes its split
// when made (brgemm) runs on one whatever `threads` says; oneDNN 2.6 makes
// the runtime-M matmul of create_any_rows() with gemm, which splits per call.

#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"
#include "kernels/linear/linear.h"

namespace normrt {

class OneDnnLinear {
 public:
  /// y (m, n) = x (m, k) · Wᵀ (+ bias (n)). Rows of x and y contiguous.
  static Expected<std::unique_ptr<OneDnnLinear>> create(const float* w, size_t n, size_t k,
                                                        WeightType type, size_t m, bool with_bias);
  /// The same with the row count chosen per call (oneDNN's runtime M), as a
  /// graph node with the sequence length S needs; run with run_rows().
  static Expected<std::unique_ptr<OneDnnLinear>> create_any_rows(const float* w, size_t n, size_t k,
                                                                 WeightType type, bool with_bias);
  ~OneDnnLinear();

  /// y (m, n) = x (m, k) · Wᵀ (+ bias) for a matmul made by create_any_rows(),
  /// on at most `threads` of oneDNN's threads. Safe to call from several
  /// threads at once (each thread uses its own stream and, for bf16, its own
  /// x buffer). Allocates oneDNN's small memory objects per call (the normrt
  /// kernels allocate nothing).
  Status run_rows(const float* x, size_t m, float* y, const float* bias, size_t threads = 1) const;

  /// Runs the matmul and waits for it. bias must be non-null iff created with_bias.
  Status run(const float* x, float* y, const float* bias);

  /// oneDNN's implementation name, e.g. "brg:avx512_core_amx" or "gemm:jit".
  const std::string& impl_name() const;
  /// Bytes of the weights in oneDNN's layout.
  size_t weight_bytes() const;

 private:
  struct Impl;
  explicit OneDnnLinear(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt
