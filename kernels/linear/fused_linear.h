#pragma once
// A linear layer with its epilogue fused: one call computes
//
//   t = x · Wᵀ + b (+ residual)          written to sum_dst if set (pre-norm)
//   y = act(norm(t))                     each stage optional
//
// for x (m, k), W (n, k) packed, y (m, n). The normalization runs over each
// output row of n columns (the matmul's N): LayerNorm, RMSNorm or pRMSNorm
// with the conventions of NormParams.
//
// How it avoids a second trip to memory:
//   m = 1, LayerNorm and RMSNorm on one thread: the matmul writes the row
//     (at most a few tens of KB, so it stays in L1/L2), then the norm kernel
//     sweeps it twice from there (statistics with the residual add, then the
//     output with the activation). Gathering the statistics block by block
//     while each block was in L1 measured slower, and so did gathering them
//     (and the residual add) in the matmul kernel after each panel: the
//     statistics sweep over a hot row costs less than the kernel's per-panel
//     additions (figures: docs/bench_kernels.md, "Measurements behind the
//     fused-norm kernels' design").
//   m = 1 otherwise: output columns are produced in blocks; each block gets its
//     residual add and its share of the row statistics while it is in L1.
//     pRMSNorm needs only the first floor(p·n) outputs for its
//     statistic, so those blocks come first, the scale follows, and every
//     later block is normalized and activated right as it is produced: one
//     pass, no sweep back over the row except its first floor(p·n) columns.
//     With several threads, each computes a panel-aligned slice of the
//     columns and its slice's statistics, all meet at one barrier, and each
//     normalizes its own slice.
//   m > 1: rows are processed in blocks small enough that their outputs stay
//     in L2. With several threads (from kFusedLinearMinParallelWork
//     multiply-adds), each computes a panel-aligned slice of the block's
//     columns for all its rows, then (once all columns are done, if there is
//     a norm) a share of the rows' epilogues: the result is bit for bit that of one
//     thread.

#include <cstddef>

#include "base/status.h"
#include "kernels/activation/activation.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"

namespace normrt {

/// Everything after the matmul. Every stage is optional.
struct LinearEpilogue {
  const float* bias = nullptr;  ///< (n) or null: added to x · Wᵀ

  const float* residual = nullptr;  ///< (m, residual_stride) or null: added after the bias
  size_t residual_stride = 0;
  /// Where t (after bias and residual, before the norm) is written: the
  /// pre-norm residual stream. Null: t is not kept.
  float* sum_dst = nullptr;  ///< (m, sum_stride) or null
  size_t sum_stride = 0;

  bool normalize = false;  ///< apply `norm` with `gain` and `norm_bias` over each row
  NormParams norm;
  const float* gain = nullptr;       ///< (n) or null
  const float* norm_bias = nullptr;  ///< (n) or null

  Activation activation = Activation::kNone;
  float activation_alpha = 0.0f;  ///< leaky_relu's slope (activation.h); ignored by the others
};

/// Checks shapes, pointers and the epilogue; the message names the offender.
Status fused_linear_validate(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                             const LinearEpilogue& epilogue, const float* y, size_t y_stride);

/// y = act(norm(x · Wᵀ + b + residual)), see the top of this file.
/// x: (m, x_stride); y: (m, y_stride) with y_stride ≥ n unless m = 1; any
/// alignment. y must not overlap x or the residual (the matmul writes y before the
/// residual is read); sum_dst must not overlap y or x. `pool` (or null: this thread only)
/// supplies the threads; results do not depend on the thread count: at m > 1
/// bit for bit, at m = 1 beyond float rounding of the statistics.
Status fused_linear(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                    const LinearEpilogue& epilogue, float* y, size_t y_stride,
                    ThreadPool* pool = nullptr);

/// fused_linear() for a caller that validated once: a runtime plan checks
/// the parameters (norm_params_validate(), the weight and operand shapes) when
/// it builds the node and places the buffers itself, so a run need not check
/// them again. Preconditions: fused_linear_validate() would return ok. Debug
/// builds still validate and return its error; release builds return ok.
Status fused_linear_unchecked(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                              const LinearEpilogue& epilogue, float* y, size_t y_stride,
                              ThreadPool* pool = nullptr);

/// From how many multiply-adds (m · n · k) an m > 1 call splits its columns
/// across the pool's threads; below, one thread is faster (measured:
/// docs/bench_kernels.md, "Threads").
inline constexpr size_t kFusedLinearMinParallelWork = size_t{1} << 20;

/// From how many weight bytes an m = 1 call (a decoder token, an RNN step)
/// splits its columns across the pool's threads. Below, with the weights hot
/// in L2, the wake-up costs more than the halved read; above, each core
/// streams its own share (measured: docs/bench_kernels.md, "m = 1 on two
/// threads"). NORMRT_GEMV_THREADS=off keeps one row on one thread (read once).
inline constexpr size_t kFusedLinearMinParallelBytes = size_t{1} << 20;

namespace detail {
/// Tests and benchmarks: the m > 1 threshold above (multiply-adds). Returns
/// the previous value. Not thread-safe; set it before calls, not during.
size_t set_fused_linear_min_parallel_work(size_t multiply_adds);
/// Tests and benchmarks: from how many weight bytes an m = 1 call splits its
/// columns across the pool's threads (SIZE_MAX: never; the default is the
/// rule above). Returns the previous value. Not thread-safe; set it before
/// calls, not during.
size_t set_fused_linear_min_parallel_bytes(size_t bytes);
}  // namespace detail

}  // namespace normrt
