#pragma once
// The fusion pass: rewrites   Linear → (Add) → (norm) → (Activation)
// chains into one FusedLinear node (kernels/linear/fused_linear.h), so the
// matmul's output is added to, normalized and activated while it is hot.
//
// One legality rule (the architecture notes'): an intermediate may vanish
// only if its single reader is the next node of the chain and it is not a
// graph output or state-update value. The Add's sum is the exception: it may
// have other readers (a pre-norm residual stream), then the fused node writes
// it as its `sum` output. The norm's axis is always the matmul's N (norms
// run over the last axis, Linear produces [.., N]). An Add is absorbed only
// when its other operand has the Linear output's full shape (a residual, not
// a broadcast bias). A norm that has its own residual operand is absorbed in
// place of an Add (same arithmetic: t + r, then the norm).
//
// The fused node takes the place of the chain's last node; other readers of
// the sum must come after that place (they always do in graphs the builders
// emit; otherwise the chain is not fused). Turning the pass off (ModelOptions)
// runs the same graph unfused; tests compare the two.
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct FusionReport {
  size_t fused_nodes = 0;    ///< FusedLinear nodes made
  size_t removed_nodes = 0;  ///< Add / norm / Activation nodes absorbed
};

/// Rewrites `graph` (validated) in place; the result validates too.
Expected<FusionReport> fuse_linear_chains(Graph& graph);

}  // namespace normrt
