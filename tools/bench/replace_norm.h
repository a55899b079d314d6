#pragma once
// The norm-swapping pass: every normalization of a graph becomes one target
// kind — LayerNorm, RMSNorm or pRMSNorm with fraction p — so one model can be
// timed (normrt-bench) or evaluated with each norm. Not an equivalence: the
// swapped graph computes a different function with the same weights.
//
// Contract, for every node that normalizes:
//   LayerNorm / RmsNorm / PRmsNorm  the op becomes the target's op; operands
//                    (x, gain?, bias?, residual?) and outputs (y, sum?) are
//                    kept as they are: a LayerNorm's bias stays as RMSNorm's
//                    optional bias, a bias-less RMSNorm becomes a bias-less
//                    LayerNorm.
//   FusedLinear with norm ≠ "none", LstmCell / GruCellBa / GruRecurrenceCho with norm ≠ "none"
//                    the "norm" attribute becomes the target's name; the
//                    gains, biases and placement are kept.
//   attributes       eps, eps_placement and gain_convention are kept; "p" is
//                    set to the target's p for pRMSNorm and removed otherwise.
// Nodes that do not normalize (FusedLinear or a cell with norm "none") are
// untouched, so are tensors. Graph metadata "norm" (and "p"), when present,
// are updated to the target, so Model::metadata() tells what ran.
//
// Errors (the graph is then left exactly as it was): p outside (0, 1] for
// pRMSNorm; ⌊p·n⌋ = 0 for a node whose normalized row has n values (n is the
// last dimension of the node's first output: the norm's row, the fused
// matmul's N, an RNN cell's H — the shortest row the cell normalizes); a
// rewritten node its op's shape inference rejects (the message is the op's).
#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kernels/norm/norm.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The normalization every norm node gets.
struct NormReplacement {
  NormKind kind = NormKind::kLayerNorm;
  double p = 1.0;  ///< pRMSNorm's fraction, in (0, 1]; ignored by the other kinds
};

/// A checked NormReplacement from its attribute spelling: `kind` is
/// "layer_norm", "rms_norm" or "prms_norm"; `p` matters only for "prms_norm"
/// and must be in (0, 1] there. The error names the bad kind or p.
Expected<NormReplacement> norm_replacement(std::string_view kind, double p);

/// "layer_norm", "rms_norm", "prms_norm:0.0625".
std::string norm_replacement_label(const NormReplacement& target);

struct ReplaceNormReport {
  size_t norm_nodes = 0;   ///< LayerNorm / RmsNorm / PRmsNorm nodes rewritten
  size_t fused_nodes = 0;  ///< FusedLinear nodes whose norm was rewritten
  size_t recurrent_cells =
      0;  ///< LstmCell / GruCellBa / GruRecurrenceCho nodes whose norm was rewritten
  size_t total() const { return norm_nodes + fused_nodes + recurrent_cells; }
};

/// Rewrites `graph` in place as the contract above says. Runs on a validated
/// graph or one between passes (fused); every rewritten node passes its op's
/// shape inference. A graph without norms is left as it is (report of 0).
Expected<ReplaceNormReport> replace_norm(Graph& graph, const NormReplacement& target);

}  // namespace normrt
