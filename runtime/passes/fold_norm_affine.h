#pragma once
// The folding pass for pre-norm blocks: where a normalization's output feeds
// only linear layers (as their x), its gain and bias move into those layers'
// weights at load, and the norm is left to compute x̂ (one scale per row for
// RMSNorm, a shift and a scale for LayerNorm):
//
//   W · (x̂ ⊙ g' + β) + c  =  (W · diag(g')) · x̂ + (W · β + c)
//
// with g' = g or 1 + g (the norm's gain convention). Exact in real
// arithmetic; in float each folded f32 weight W[i][j]·g'[j] is rounded once,
// and W · β is summed in double.
// Not folded: a norm followed by an activation (act(x̂g + β) is not linear),
// an output that escapes (graph output, state) or has a non-linear reader,
// and readers with bf16 weights — the accuracy guard: W·g rounded to bf16
// again moved logits by ~1e-2 of their range on the decoder fixtures.
// Norm nodes: LayerNorm, RmsNorm, PRmsNorm, and FusedLinear with a norm.
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct FoldReport {
  size_t folded_norms = 0;       ///< norms that lost their gain/bias
  size_t rewritten_linears = 0;  ///< linear layers given folded weights
};

/// Rewrites `graph` (validated) in place: new weight tensors (owned by the
/// graph) replace the readers' weights and biases.
Expected<FoldReport> fold_norm_affine(Graph& graph);

}  // namespace normrt
