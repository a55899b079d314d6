#include "runtime/graph/norm_attributes.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>
#include <string>

namespace normrt {
namespace {

// One row per kind: every name it has.
struct KindNames {
  NormKind kind;
  OpType op;
  const char* name;   // attributes, configs, command lines
  const char* label;  // messages
};
constexpr KindNames kKinds[] = {
    {NormKind::kLayerNorm, OpType::kLayerNorm, "layer_norm", "LayerNorm"},
    {NormKind::kRmsNorm, OpType::kRmsNorm, "rms_norm", "RMSNorm"},
    {NormKind::kPRmsNorm, OpType::kPRmsNorm, "prms_norm", "pRMSNorm"},
};

const KindNames* find_kind(NormKind kind) {
  for (const KindNames& row : kKinds) {
    if (row.kind == kind) return &row;
  }
  return nullptr;
}

constexpr const char* kNone = "none";

// The attribute names.
constexpr const char* kEps = "eps";
constexpr const char* kEpsPlacement = "eps_placement";
constexpr const char* kGainConvention = "gain_convention";
constexpr const char* kP = "p";
constexpr const char* kNorm = "norm";
constexpr const char* kAxes = "axes";

// 9 significant digits, so a float reads back exactly ("1e-05", "0.0625").
std::string number(double value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

Status node_error(const Node& node, const std::string& what) {
  return Status::error("node '" + node.name + "' (" + op_type_name(node.op) + "): " + what);
}

std::optional<EpsPlacement> eps_placement_from_name(std::string_view name) {
  if (name == "inside_sqrt") return EpsPlacement::kInsideSqrt;
  if (name == "added_to_rms") return EpsPlacement::kAddedToRms;
  return std::nullopt;
}

std::optional<GainConvention> gain_convention_from_name(std::string_view name) {
  if (name == "as_stored") return GainConvention::kAsStored;
  if (name == "one_plus") return GainConvention::kOnePlus;
  return std::nullopt;
}

Expected<EpsPlacement> eps_placement_from(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute(kEpsPlacement, "inside_sqrt"));
  if (std::optional<EpsPlacement> placement = eps_placement_from_name(name)) return *placement;
  return node_error(
      node, "attribute 'eps_placement' must be \"inside_sqrt\" or \"added_to_rms\", found \"" +
                name + "\"");
}

Expected<GainConvention> gain_convention_from(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute(kGainConvention, "as_stored"));
  if (std::optional<GainConvention> gain = gain_convention_from_name(name)) return *gain;
  return node_error(
      node,
      "attribute 'gain_convention' must be \"as_stored\" or \"one_plus\", found \"" + name + "\"");
}

void set(std::vector<Attribute>& attributes, const std::string& name, AttributeValue value) {
  for (Attribute& a : attributes) {
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  }
  attributes.push_back({name, std::move(value)});
}

}  // namespace

const char* norm_kind_name(NormKind kind) {
  const KindNames* row = find_kind(kind);
  return row != nullptr ? row->name : "invalid";
}

const char* norm_kind_label(NormKind kind) {
  const KindNames* row = find_kind(kind);
  return row != nullptr ? row->label : "invalid";
}

Expected<NormKind> norm_kind_from_name(std::string_view name) {
  for (const KindNames& row : kKinds) {
    if (name == row.name) return row.kind;
  }
  return Status::error("unknown norm '" + std::string(name) +
                       "': expected layer_norm, rms_norm or prms_norm");
}

const char* eps_placement_name(EpsPlacement placement) {
  return placement == EpsPlacement::kAddedToRms ? "added_to_rms" : "inside_sqrt";
}

const char* gain_convention_name(GainConvention convention) {
  return convention == GainConvention::kOnePlus ? "one_plus" : "as_stored";
}

OpType norm_op_type(NormKind kind) {
  const KindNames* row = find_kind(kind);
  return row != nullptr ? row->op : OpType::kCount;
}

std::optional<NormKind> norm_kind_of_op(OpType type) {
  for (const KindNames& row : kKinds) {
    if (row.op == type) return row.kind;
  }
  return std::nullopt;
}

const char* norm_op_kind(OpType type) {
  std::optional<NormKind> kind = norm_kind_of_op(type);
  return kind ? norm_kind_name(*kind) : nullptr;
}

NormParams NormConfig::params() const {
  NormParams out;
  out.kind = kind;
  out.eps = static_cast<float>(eps);
  out.eps_placement = eps_placement;
  out.gain_convention = gain_convention;
  if (kind == NormKind::kPRmsNorm) out.p = p;
  return out;
}

const char* norm_name(const NormConfig& norm) {
  return norm.enabled ? norm_kind_name(norm.kind) : kNone;
}

bool norm_eps_valid(double eps) { return eps >= 0.0 && eps <= FLT_MAX; }

Status check_norm_config(const NormConfig& norm) {
  if (find_kind(norm.kind) == nullptr) {
    return Status::error("config: norm kind " + std::to_string(static_cast<int>(norm.kind)) +
                         " is not one of layer_norm, rms_norm, prms_norm");
  }
  if (!norm_eps_valid(norm.eps))
    return Status::error("config: eps = " + std::to_string(norm.eps) + " must be finite and >= 0");
  if (norm.eps_placement != EpsPlacement::kInsideSqrt &&
      norm.eps_placement != EpsPlacement::kAddedToRms) {
    return Status::error("config: eps_placement " +
                         std::to_string(static_cast<int>(norm.eps_placement)) +
                         " is not inside_sqrt or added_to_rms");
  }
  if (norm.gain_convention != GainConvention::kAsStored &&
      norm.gain_convention != GainConvention::kOnePlus) {
    return Status::error("config: gain_convention " +
                         std::to_string(static_cast<int>(norm.gain_convention)) +
                         " is not as_stored or one_plus");
  }
  if (norm.is(NormKind::kPRmsNorm) && !(norm.p > 0 && norm.p <= 1))
    return Status::error("config: p = " + std::to_string(norm.p) +
                         " must be in (0, 1] for prms_norm");
  return Status::ok();
}

Expected<NormConfig> norm_config_from_name(std::string_view norm) {
  NormConfig config;
  if (norm == kNone) {
    config.enabled = false;
  } else if (Expected<NormKind> kind = norm_kind_from_name(norm)) {
    config.kind = *kind;
  } else {
    return Status::error("config: norm '" + std::string(norm) +
                         "' is not one of layer_norm, rms_norm, prms_norm, none");
  }
  return config;
}

Expected<NormConfig> norm_config_from_names(std::string_view norm, double eps,
                                            std::string_view eps_placement,
                                            std::string_view gain_convention, double p) {
  NORMRT_ASSIGN_OR_RETURN(NormConfig config, norm_config_from_name(norm));
  config.eps = eps;
  std::optional<EpsPlacement> placement = eps_placement_from_name(eps_placement);
  if (!placement) {
    return Status::error("config: eps_placement '" + std::string(eps_placement) +
                         "' is not inside_sqrt or added_to_rms");
  }
  config.eps_placement = *placement;
  std::optional<GainConvention> gain = gain_convention_from_name(gain_convention);
  if (!gain) {
    return Status::error("config: gain_convention '" + std::string(gain_convention) +
                         "' is not as_stored or one_plus");
  }
  config.gain_convention = *gain;
  config.p = p;
  NORMRT_RETURN_IF_ERROR(check_norm_config(config));
  return config;
}

std::vector<Attribute> norm_attributes(const NormConfig& norm, NormAxes axes) {
  std::vector<Attribute> attributes = {
      {kEps, norm.eps},
      {kEpsPlacement, std::string(eps_placement_name(norm.eps_placement))},
      {kGainConvention, std::string(gain_convention_name(norm.gain_convention))}};
  if (norm.is(NormKind::kPRmsNorm)) attributes.push_back({kP, norm.p});
  if (axes == NormAxes::kSpatial) attributes.push_back({kAxes, std::string("spatial")});
  return attributes;
}

Attribute norm_selection_attribute(const NormConfig& norm) {
  return {kNorm, std::string(norm_name(norm))};
}

void copy_norm_attributes(const Node& norm_node, Node& fused) {
  fused.set_attribute(kNorm, std::string(norm_op_kind(norm_node.op)));
  for (const Attribute& attribute : norm_node.attributes) {
    if (attribute.name != kAxes) fused.set_attribute(attribute.name, attribute.value);
  }
}

void set_norm_kind_attributes(std::vector<Attribute>& attributes, NormKind kind, double p,
                              bool with_norm_name) {
  if (with_norm_name) set(attributes, kNorm, std::string(norm_kind_name(kind)));
  if (kind == NormKind::kPRmsNorm) {
    set(attributes, kP, p);
  } else {
    attributes.erase(std::remove_if(attributes.begin(), attributes.end(),
                                    [](const Attribute& a) { return a.name == kP; }),
                     attributes.end());
  }
}

void set_gain_convention(Node& node, GainConvention convention) {
  node.set_attribute(kGainConvention, std::string(gain_convention_name(convention)));
}

const std::vector<std::string_view> kNormConventionAttributeNames = {kEps, kEpsPlacement,
                                                                     kGainConvention};

Expected<NormParams> norm_params_from_attributes(const Node& node, NormKind kind) {
  NormParams params;
  params.kind = kind;

  NORMRT_ASSIGN_OR_RETURN(double eps, node.float_attribute(kEps, kDefaultNormEps));
  if (!norm_eps_valid(eps)) {
    return node_error(node, "attribute 'eps' must be finite and >= 0, found " + number(eps));
  }
  params.eps = static_cast<float>(eps);

  NORMRT_ASSIGN_OR_RETURN(EpsPlacement placement, eps_placement_from(node));
  params.eps_placement = placement;
  NORMRT_ASSIGN_OR_RETURN(GainConvention gain, gain_convention_from(node));
  params.gain_convention = gain;

  const bool has_p = node.find_attribute(kP) != nullptr;
  if (kind != NormKind::kPRmsNorm) {
    if (has_p) {
      return node_error(
          node, std::string("attribute 'p' applies only to pRMSNorm, not ") + norm_kind_name(kind));
    }
    return params;
  }
  if (!has_p) return node_error(node, "attribute 'p' (pRMSNorm's fraction, in (0, 1]) is required");
  NORMRT_ASSIGN_OR_RETURN(double p, node.float_attribute(kP, 1.0));
  if (!(p > 0.0 && p <= 1.0)) {
    return node_error(node, "attribute 'p' must be in (0, 1], found " + number(p));
  }
  params.p = p;
  return params;
}

Expected<NormSelection> norm_selection_from_attributes(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute(kNorm, kNone));
  NormSelection selection;
  if (name == kNone) {
    if (node.find_attribute(kP) != nullptr) {
      return node_error(node, "attribute 'p' applies only to norm \"prms_norm\", not \"none\"");
    }
    return selection;
  }
  Expected<NormKind> kind = norm_kind_from_name(name);
  if (!kind) {
    return node_error(node,
                      "attribute 'norm' must be \"none\", \"layer_norm\", \"rms_norm\" or "
                      "\"prms_norm\", found \"" +
                          name + "\"");
  }
  NORMRT_ASSIGN_OR_RETURN(NormParams params, norm_params_from_attributes(node, *kind));
  selection.enabled = true;
  selection.params = params;
  return selection;
}

bool takes_norm_attribute(OpType type) {
  return type == OpType::kFusedLinear || type == OpType::kConv2d || type == OpType::kLstmCell ||
         type == OpType::kGruCellBa || type == OpType::kGruRecurrenceCho;
}

Expected<NormSelection> node_norm(const Node& node) {
  if (std::optional<NormKind> kind = norm_kind_of_op(node.op)) {
    NORMRT_ASSIGN_OR_RETURN(NormParams params, norm_params_from_attributes(node, *kind));
    return NormSelection{true, params};
  }
  if (takes_norm_attribute(node.op)) return norm_selection_from_attributes(node);
  return NormSelection{};
}

Expected<NormAxes> norm_axes_from_attributes(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute(kAxes, "last"));
  if (name == "last") return NormAxes::kLast;
  if (name == "spatial") return NormAxes::kSpatial;
  return node_error(node,
                    "attribute 'axes' must be \"last\" or \"spatial\", found \"" + name + "\"");
}

bool is_spatial_norm(const Node& node) {
  if (!norm_kind_of_op(node.op)) return false;
  const AttributeValue* axes = node.find_attribute(kAxes);
  const auto* name = axes != nullptr ? std::get_if<std::string>(axes) : nullptr;
  return name != nullptr && *name == "spatial";
}

}  // namespace normrt
