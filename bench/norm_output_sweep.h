#pragma once
// The output sweep of a normalization alone: y = x·c·g (+ b), with the scale
// c known in advance. Every normalization with a gain makes this sweep (and
// a statistics sweep before it, whose result c depends on), so bench_norm
// reports its time beside the copy floor: where this sweep alone exceeds a
// copy-floor target, that target is out of reach on this machine.
//
// AVX-512 intrinsics (a target attribute, like bench_linear's read floor): an
// independent reference, not normrt's kernel code. Call it only where the CPU
// runs AVX-512.

#include <cstddef>

namespace normrt::bench {

/// y[i] = x[i]·scale·g[i] (+ b[i] when b is not null).
void output_sweep(const float* x, const float* g, const float* b, float scale, float* y,
                  size_t n);

}  // namespace normrt::bench
