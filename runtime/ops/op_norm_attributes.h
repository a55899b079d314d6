#pragma once
// The normalization convention as node attributes, shared by every op that
// normalizes (LayerNorm, RmsNorm, PRmsNorm, FusedLinear, the RNN cells):
//
//   eps              float, finite, ≥ 0           default 1e-5
//   eps_placement    "inside_sqrt" | "added_to_rms" default "inside_sqrt"
//   gain_convention  "as_stored" | "one_plus"      default "as_stored"
//   p                float in (0, 1]               pRMSNorm only, and required there
//
// and, for ops whose normalization is optional or selectable:
//
//   norm             "none" | "layer_norm" | "rms_norm" | "prms_norm"   default "none"
//
// and, for the norm ops (LayerNorm, RmsNorm, PRmsNorm) only, which values form
// one normalized group:
//
//   axes             "last" | "spatial"                                 default "last"
//                    "last": each row of the last axis (gain, bias [n]);
//                    "spatial": x is NCHW and each (image, channel) plane of
//                    H·W values is one group, gain and bias [C] applied as
//                    x̂·g + b (kernels/norm/norm_spatial.h)
//
// Errors name the node, the attribute, the expected and the found value.
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/norm/norm.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// eps, eps_placement, gain_convention: the attributes every normalizing op takes.
extern const std::vector<std::string_view> kNormConventionAttributeNames;

/// The NormParams of `kind` from the node's attributes. "p" is required for
/// kRmsNormPartial and rejected for the other kinds.
Expected<NormParams> norm_params_from_attributes(const Node& node, NormKind kind);

/// The "norm" attribute and the convention it selects.
struct NormSelection {
  bool enabled = false;  ///< false for "none": no normalization
  NormParams params;     ///< meaningful only if enabled
};

/// Reads "norm" (default "none") and, if it names a norm, its convention.
/// With "none", eps_placement/gain_convention/eps are accepted but unused and
/// "p" is rejected.
Expected<NormSelection> norm_selection_from_attributes(const Node& node);

/// "layer_norm", "rms_norm" or "prms_norm".
const char* norm_kind_attribute_name(NormKind kind);

enum class NormAxes { kLast, kSpatial };

/// Reads "axes" (default "last").
Expected<NormAxes> norm_axes_from_attributes(const Node& node);

/// True if the node is a norm op whose "axes" is "spatial" (false for an
/// invalid value: validation rejects it). For passes that handle row norms only.
bool is_spatial_norm(const Node& node);

}  // namespace normrt
