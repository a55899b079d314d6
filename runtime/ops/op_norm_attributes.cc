#include "runtime/ops/op_norm_attributes.h"

#include <cfloat>
#include <cmath>
#include <string>

#include "runtime/ops/op_support.h"

namespace normrt {

const std::vector<std::string_view> kNormConventionAttributeNames = {"eps", "eps_placement",
                                                                     "gain_convention"};

namespace {

Expected<EpsPlacement> eps_placement_from(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute("eps_placement", "inside_sqrt"));
  if (name == "inside_sqrt") return EpsPlacement::kInsideSqrt;
  if (name == "added_to_rms") return EpsPlacement::kAddedToRms;
  return node_error(
      node, "attribute 'eps_placement' must be \"inside_sqrt\" or \"added_to_rms\", found \"" +
                name + "\"");
}

Expected<GainConvention> gain_convention_from(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute("gain_convention", "as_stored"));
  if (name == "as_stored") return GainConvention::kAsStored;
  if (name == "one_plus") return GainConvention::kOnePlus;
  return node_error(
      node,
      "attribute 'gain_convention' must be \"as_stored\" or \"one_plus\", found \"" + name + "\"");
}

}  // namespace

const char* norm_kind_attribute_name(NormKind kind) {
  switch (kind) {
    case NormKind::kLayerNorm:
      return "layer_norm";
    case NormKind::kRmsNorm:
      return "rms_norm";
    case NormKind::kRmsNormPartial:
      return "prms_norm";
  }
  return "invalid";
}

Expected<NormParams> norm_params_from_attributes(const Node& node, NormKind kind) {
  NormParams params;
  params.kind = kind;

  NORMRT_ASSIGN_OR_RETURN(double eps, node.float_attribute("eps", 1e-5));
  // The kernels take eps as a float: it must stay finite once rounded.
  if (!(eps >= 0.0) || !(eps <= FLT_MAX)) {
    return node_error(node,
                      "attribute 'eps' must be finite and >= 0, found " + message_number(eps));
  }
  params.eps = static_cast<float>(eps);

  NORMRT_ASSIGN_OR_RETURN(EpsPlacement placement, eps_placement_from(node));
  params.eps_placement = placement;
  NORMRT_ASSIGN_OR_RETURN(GainConvention gain, gain_convention_from(node));
  params.gain_convention = gain;

  const bool has_p = node.find_attribute("p") != nullptr;
  if (kind != NormKind::kRmsNormPartial) {
    if (has_p) {
      return node_error(node, std::string("attribute 'p' applies only to pRMSNorm, not ") +
                                  norm_kind_attribute_name(kind));
    }
    return params;
  }
  if (!has_p) return node_error(node, "attribute 'p' (pRMSNorm's fraction, in (0, 1]) is required");
  NORMRT_ASSIGN_OR_RETURN(double p, node.float_attribute("p", 1.0));
  if (!(p > 0.0 && p <= 1.0)) {
    return node_error(node, "attribute 'p' must be in (0, 1], found " + message_number(p));
  }
  params.partial_fraction = p;
  return params;
}

Expected<NormAxes> norm_axes_from_attributes(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute("axes", "last"));
  if (name == "last") return NormAxes::kLast;
  if (name == "spatial") return NormAxes::kSpatial;
  return node_error(node,
                    "attribute 'axes' must be \"last\" or \"spatial\", found \"" + name + "\"");
}

bool is_spatial_norm(const Node& node) {
  if (norm_op_kind(node.op) == nullptr) return false;
  const AttributeValue* axes = node.find_attribute("axes");
  const auto* name = axes != nullptr ? std::get_if<std::string>(axes) : nullptr;
  return name != nullptr && *name == "spatial";
}

Expected<NormSelection> norm_selection_from_attributes(const Node& node) {
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute("norm", "none"));
  NormSelection selection;
  NormKind kind = NormKind::kLayerNorm;
  if (name == "none") {
    if (node.find_attribute("p") != nullptr) {
      return node_error(node, "attribute 'p' applies only to norm \"prms_norm\", not \"none\"");
    }
    return selection;
  } else if (name == "layer_norm") {
    kind = NormKind::kLayerNorm;
  } else if (name == "rms_norm") {
    kind = NormKind::kRmsNorm;
  } else if (name == "prms_norm") {
    kind = NormKind::kRmsNormPartial;
  } else {
    return node_error(node,
                      "attribute 'norm' must be \"none\", \"layer_norm\", \"rms_norm\" or "
                      "\"prms_norm\", found \"" +
                          name + "\"");
  }
  NORMRT_ASSIGN_OR_RETURN(NormParams params, norm_params_from_attributes(node, kind));
  selection.enabled = true;
  selection.params = params;
  return selection;
}

}  // namespace normrt
