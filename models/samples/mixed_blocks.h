#pragma once
// Small synthetic graphs that the runtime's tests and bench_executor share: a
// post-norm and a pre-norm block that exercise fusion and folding, and a
// running sum that exercises state. Random weights, no model file.
#include <cstdint>
#include <vector>

#include "runtime/graph/graph.h"

namespace normrt::samples {

/// `count` values uniform in [-scale, scale], reproducible from `seed`.
std::vector<float> random_values(size_t count, float scale, uint32_t seed);

/// The weights of mixed_blocks(), kept as floats (a reference evaluates them).
struct MixedBlocksWeights {
  size_t d = 0;
  std::vector<float> w1, b1, ln_gain, ln_bias, w2, b2, rms2_gain, pre_gain, wq, wk;
};
MixedBlocksWeights mixed_blocks_weights(size_t d, uint32_t seed);

/// Two blocks over x [S, d] (input "x", output "out"):
///   post-norm (BERT style):  h = LN(x·W1ᵀ + b1 + x; ln_gain, ln_bias)
///                            y = SiLU(RMS(h·W2ᵀ + b2; rms2_gain))
///   pre-norm (Llama style):  n = RMS(y; pre_gain)
///                            out = n·Wqᵀ + n·Wkᵀ + y
/// The fusion pass makes three FusedLinear nodes of it (Linear1+Add+LN,
/// Linear2+RMS+SiLU, Linear_q+Add) and the fold pass folds two norms (the LN
/// into W2, the pre-norm RMS gain into Wq and Wk). `bf16` stores the four
/// matrices as bfloat16. Every norm has eps = kMixedBlocksEps.
Graph mixed_blocks(const MixedBlocksWeights& weights, int64_t max_sequence_length, bool bf16);
constexpr double kMixedBlocksEps = 1e-5;

/// A running sum of width d: input "x" [1, d], state "h" [1, d], output
/// "out" = x + h, and h ← out after each run.
Graph running_sum(int64_t d);

}  // namespace normrt::samples
