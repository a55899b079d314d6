#pragma once
// The normalization attributes of the recurrent cells (LstmCell, GruCell):
//   "norm"             "none" (default) | "layer_norm" | "rms_norm" | "prms_norm"
//   "eps"              float ≥ 0 (finite as a float), default 1e-5
//   "eps_placement"    "inside_sqrt" (default) | "added_to_rms"
//   "gain_convention"  "as_stored" (default) | "one_plus"
//   "p"                pRMSNorm's fraction in (0, 1]; required for "prms_norm",
//                      rejected otherwise
// The same names and rules as the norm ops' attributes (op_norm_attributes.h,
// which this can be replaced by once it is in the build); kernels/norm/norm.h
// explains each convention.
#include "kernels/common/status.h"
#include "kernels/norm/norm.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt::seq_op {

struct NormAttributes {
  bool enabled = true;  ///< false for "norm" = "none"
  NormParams params;    ///< meaningful when enabled
};

/// Parses and checks the attributes above; errors name the node, the
/// attribute, the expected and the found value.
Expected<NormAttributes> parse_norm_attributes(const NodeChecker& checker);

}  // namespace normrt::seq_op
