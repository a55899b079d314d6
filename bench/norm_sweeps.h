#pragma once
// The two sweeps every normalization makes over a row, apart: the statistics
// sweep (Σ x², and Σ x for LayerNorm) and the output sweep y = x·c·g (+ b).
// In a real kernel the second waits for the first (c comes from the
// statistics); here c is fixed in advance, so the CPU may overlap them.
// bench_norm reports their time beside the copy floor: a copy-floor target
// below it is out of reach on this machine for any kernel that reads the row
// twice (every one, for rows longer than the register file).
//
// AVX-512 intrinsics (a target attribute, like bench_linear's read floor): an
// independent reference, not normrt's kernel code. Call it only where the CPU
// runs AVX-512.

#include <cstddef>

namespace normrt::bench {

/// Σ x[i]² over i < count, plus Σ x[i] when `with_sum` (LayerNorm's pair),
/// folded into one float so that neither sum can be optimized away.
float statistics_sweep(const float* x, size_t count, bool with_sum);

/// y[i] = x[i]·scale·g[i] (+ b[i] when b is not null).
void output_sweep(const float* x, const float* g, const float* b, float scale, float* y, size_t n);

/// The least a fused LayerNorm does after its matmul if the statistics came
/// free (gathered in the matmul's registers): two horizontal sums, the float
/// mean and scale, then y = (y - mean)·scale·g + b in place, each step
/// waiting for the one before. The sums are taken from y's first vector, so
/// that the chain also waits for the matmul's output, as gathered statistics
/// would. n ≥ 1.
void layer_norm_epilogue_floor(float* y, const float* g, const float* b, size_t n);

}  // namespace normrt::bench
