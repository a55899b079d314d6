#pragma once
// The convolution fusion pass: rewrites   Conv2d → (spatial norm) → (Activation)
// chains into one Conv2d node (runtime/ops/op_conv.cc), so that the
// convolution's output is normalized per channel and activated in one sweep
// after the primitive (kernels/norm/norm_spatial.h), or, without a norm,
// activated in place right after it (kernels/conv/conv_onednn.h).
//
// Legality, as fuse_linear_chains': an intermediate may vanish only if its
// single reader is the next node of the chain and it is not a graph output
// or state-update value. The norm must be a norm op with axes "spatial"
// reading the convolution's output as x (so the channels are the Conv2d's);
// a Conv2d that already normalizes or activates is left alone.
// Turning fusion off (ModelOptions::fuse) runs the same graph unfused; the
// tests compare the two.
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct ConvFusionReport {
  size_t fused_nodes = 0;    ///< Conv2d nodes that absorbed something
  size_t removed_nodes = 0;  ///< norm / Activation nodes absorbed
};

/// Rewrites `graph` (validated) in place; the result validates too.
Expected<ConvFusionReport> fuse_conv_chains(Graph& graph);

}  // namespace normrt
