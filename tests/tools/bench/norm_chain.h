#pragma once
// A small Linear → norm → Linear chain for the replace_norm tests, built
// directly with any norm, and its double-precision evaluation written here
// from the equations (docs/ops.md), independently of the ops and kernels.
//
//   inputs  x [S, K], residual r [S, N] (only with `residual`)
//   t   = x·W1ᵀ + b1                                   [S, N]
//   y   = norm(t (+ r); gain, bias?)                   [S, N]
//   out = y·W2ᵀ + b2                                   [S, M]   (graph output "out")
//
// b1 is shifted by +0.5 so that rows have a clear mean: LayerNorm and RMSNorm
// then differ by O(1), as do pRMSNorm's different p.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/graph/graph.h"

namespace normrt::test {

struct ChainNorm {
  OpType op = OpType::kLayerNorm;  ///< kLayerNorm, kRmsNorm or kPRmsNorm
  double p = 1.0;                  ///< kPRmsNorm only
  bool bias = true;                ///< the norm has a bias operand
  bool residual = false;           ///< the norm has a residual operand (input "r")
  double eps = 1e-5;
  std::string eps_placement = "inside_sqrt";
  std::string gain_convention = "as_stored";
};

struct ChainWeights {
  size_t k = 0, n = 0, m = 0;
  std::vector<float> w1, b1, gain, bias, w2, b2;
};
ChainWeights chain_weights(size_t k, size_t n, size_t m, uint32_t seed);

/// The chain with the norm `norm` (node "norm"), planned for S ≤ 8.
Graph make_chain(const ChainWeights& weights, const ChainNorm& norm);

/// `out` (S × M) for x (S × K) and, with a residual, r (S × N), in double.
std::vector<double> chain_reference(const ChainWeights& weights, const ChainNorm& norm,
                                    const std::vector<float>& x, const std::vector<float>& r,
                                    size_t rows);

/// A per-element tolerance for `out` from the data: 1e-4 · (|b2| + Σ|W2·y|)
/// with y in double — the linear kernels' 1e-5 relative contract and the
/// norm's 4e-6, with headroom — so an error of the norm's kind or p (O(1) in
/// y) is far outside it.
std::vector<double> chain_tolerance(const ChainWeights& weights, const ChainNorm& norm,
                                    const std::vector<float>& x, const std::vector<float>& r,
                                    size_t rows);

std::vector<float> chain_random(size_t count, float scale, uint32_t seed);

}  // namespace normrt::test
