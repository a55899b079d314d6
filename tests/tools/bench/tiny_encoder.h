#pragma once
// A tiny BERT-style encoder for normrt-bench's end-to-end tests, built with
// GraphBuilder: vocabulary 50, width 32, 4 heads, FFN 64, S ≤ 8, one
// post-norm layer, mean pooling:
//   h = LN(Embedding(input_ids))                         standalone when fused
//   a = LN(Linear(Attention(q, k, v)) ; residual h)      fused with its norm
//   o = LN(Linear(gelu(Linear(a))) ; residual a)         fused with its norm
//   embedding = MeanPool(o) [1, 32]
// Three LayerNorm nodes; fused, one stays a norm node and two normalize
// inside FusedLinear nodes.
#include "runtime/graph/graph.h"

namespace normrt::test {

Graph tiny_encoder();

}  // namespace normrt::test
