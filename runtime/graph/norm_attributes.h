#pragma once
// The normalization convention in a graph: the one owner of how a norm is
// spelled as node attributes, of its defaults and of the names of the norm
// kinds. Builders and passes encode with it, ops decode with it, config
// readers and command lines parse names with it; nothing else spells them.
//
// The attributes (docs/ops.md, "Normalization attributes"):
//
//   eps              float, finite as a float, ≥ 0  default kDefaultNormEps (kernels/norm/norm.h)
//   eps_placement    "inside_sqrt" | "added_to_rms"  default "inside_sqrt"
//   gain_convention  "as_stored" | "one_plus"        default "as_stored"
//   p                float in (0, 1]                 pRMSNorm only, and required there
//
// and, for ops whose normalization is optional or selectable (FusedLinear,
// Conv2d, LstmCell, GruCellBa, GruRecurrenceCho):
//
//   norm             "none" | "layer_norm" | "rms_norm" | "prms_norm"   default "none"
//
// and, for the norm ops (LayerNorm, RmsNorm, PRmsNorm: the op is the kind)
// only, which values form one normalized group:
//
//   axes             "last" | "spatial"                                 default "last"
//                    "last": each row of the last axis (gain, bias [n]);
//                    "spatial": x is NCHW and each (image, channel) plane of
//                    H·W values is one group, gain and bias [C] applied as
//                    x̂·g + b (kernels/norm/norm_spatial.h)
//
// Every name of a kind, in one table (norm_attributes.cc):
//
//   NormKind          op (code)      attributes, configs, --norm   messages
//   kLayerNorm        LayerNorm (1)  "layer_norm"                  LayerNorm
//   kRmsNorm          RmsNorm (2)    "rms_norm"                    RMSNorm
//   kPRmsNorm         PRmsNorm (3)   "prms_norm"                   pRMSNorm
//
// pRMSNorm's fraction is p in attributes, configs and NormParams. These spellings are part of the
// model file format (attributes are stored by name and value, ops by code): never change one, only
// add.
//
// Decoding errors name the node, the attribute, the expected and the found
// value; config errors name the field.
#include <optional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/norm/norm.h"
#include "runtime/graph/graph.h"

namespace normrt {

// ---- Names ----------------------------------------------------------------

/// "layer_norm", "rms_norm", "prms_norm" ("invalid" for another value).
const char* norm_kind_name(NormKind kind);
/// "LayerNorm", "RMSNorm", "pRMSNorm": the kind in messages.
const char* norm_kind_label(NormKind kind);
/// The kind `name` spells; an error "unknown norm '<name>': expected
/// layer_norm, rms_norm or prms_norm" otherwise.
Expected<NormKind> norm_kind_from_name(std::string_view name);
/// "inside_sqrt", "added_to_rms".
const char* eps_placement_name(EpsPlacement placement);
/// "as_stored", "one_plus".
const char* gain_convention_name(GainConvention convention);

/// The op of a standalone norm node: kLayerNorm, kRmsNorm or kPRmsNorm.
OpType norm_op_type(NormKind kind);
/// The kind a norm op applies; nullopt for an op that is not a norm.
std::optional<NormKind> norm_kind_of_op(OpType type);
/// norm_kind_name() of the kind a norm op applies; null for an op that is not a norm.
const char* norm_op_kind(OpType type);

// ---- A model's normalization, as configs and builders state it -----------

/// Which values a norm op normalizes together: rows of the last axis, or the
/// H·W plane of each (image, channel) of an NCHW tensor.
enum class NormAxes { kLast, kSpatial };

/// None, or one kind with its convention. eps and p stay doubles, as
/// attributes, metadata and config files hold them; params() rounds eps to
/// the kernels' float.
struct NormConfig {
  bool enabled = true;  ///< false: "none", no normalization
  NormKind kind = NormKind::kLayerNorm;
  double eps = kDefaultNormEps;
  EpsPlacement eps_placement = EpsPlacement::kInsideSqrt;
  GainConvention gain_convention = GainConvention::kAsStored;
  double p = 0.0;  ///< pRMSNorm's fraction, in (0, 1]; unused by the other kinds

  bool is(NormKind k) const { return enabled && kind == k; }
  /// The kernels' parameters (meaningful when enabled).
  NormParams params() const;
};

/// "none", or norm_kind_name() of the kind: the "norm" attribute's value.
const char* norm_name(const NormConfig& norm);

/// True if eps is finite as a float and ≥ 0 (the kernels take it as a float).
bool norm_eps_valid(double eps);

/// An error "config: <field> ..." naming the field if `norm` is invalid:
/// eps (norm_eps_valid), p in (0, 1] for prms_norm, enum values out of range.
Status check_norm_config(const NormConfig& norm);

/// The NormConfig `norm` names ("none" or a kind name), with the default
/// convention; an error "config: norm 'batch_norm' is not one of layer_norm,
/// rms_norm, prms_norm, none" otherwise.
Expected<NormConfig> norm_config_from_name(std::string_view norm);

/// A NormConfig from the spellings of a config file or a command line:
/// `norm` is "none" or a kind name. Errors name the field ("config: norm
/// 'batch_norm' is not one of layer_norm, rms_norm, prms_norm, none"); the
/// result passed check_norm_config().
Expected<NormConfig> norm_config_from_names(std::string_view norm, double eps,
                                            std::string_view eps_placement,
                                            std::string_view gain_convention, double p);

// ---- Encoding: builders and passes ----------------------------------------

/// eps, eps_placement, gain_convention (and p for pRMSNorm) of a norm node
/// or of an op that normalizes, and "axes" = "spatial" for a spatial norm
/// node ("last" is the default and not written). Does not include "norm".
std::vector<Attribute> norm_attributes(const NormConfig& norm, NormAxes axes = NormAxes::kLast);
/// The "norm" attribute: norm_name(norm).
Attribute norm_selection_attribute(const NormConfig& norm);

/// Gives `fused` (a FusedLinear or Conv2d absorbing the norm op `norm_node`)
/// the attributes to normalize as `norm_node` did: "norm" and the convention
/// attributes copied as written. "axes" is not copied (the fused op's own
/// form decides its groups).
void copy_norm_attributes(const Node& norm_node, Node& fused);

/// Sets kind `kind` with fraction `p` on a node's attributes (or graph
/// metadata): "norm" when `with_norm_name`, "p" for pRMSNorm, no "p"
/// otherwise. The other convention attributes are kept.
void set_norm_kind_attributes(std::vector<Attribute>& attributes, NormKind kind, double p,
                              bool with_norm_name);
/// Sets "gain_convention".
void set_gain_convention(Node& node, GainConvention convention);

// ---- Decoding: ops and passes ---------------------------------------------

/// eps, eps_placement, gain_convention: the attributes every normalizing op takes.
extern const std::vector<std::string_view> kNormConventionAttributeNames;

/// The NormParams of `kind` from the node's attributes. "p" is required for
/// kPRmsNorm and rejected for the other kinds.
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

/// What any node normalizes with: a norm op's kind and convention, the
/// "norm" selection of the ops that take one (FusedLinear, Conv2d, LstmCell,
/// GruCellBa, GruRecurrenceCho), nothing (enabled = false) for the other ops.
Expected<NormSelection> node_norm(const Node& node);

/// True for the ops whose normalization the "norm" attribute selects.
bool takes_norm_attribute(OpType type);

/// Reads "axes" (default "last").
Expected<NormAxes> norm_axes_from_attributes(const Node& node);

/// True if the node is a norm op whose "axes" is "spatial" (false for an
/// invalid value: validation rejects it). For passes that handle row norms only.
bool is_spatial_norm(const Node& node);

}  // namespace normrt
