#include "runtime/ops/op_activation_attributes.h"

#include <cfloat>
#include <string>

#include "runtime/ops/op_support.h"

namespace normrt {

const std::vector<std::string_view> kActivationAttributeNames = {"activation", "negative_slope"};

Expected<ActivationSelection> activation_from_attributes(const Node& node, bool required) {
  if (required && node.find_attribute("activation") == nullptr) {
    return node_error(node, "attribute 'activation' is required");
  }
  NORMRT_ASSIGN_OR_RETURN(std::string name, node.string_attribute("activation", "none"));
  Expected<Activation> kind = activation_from_name(name);
  if (!kind) return node_error(node, "attribute 'activation': " + kind.status().message());
  ActivationSelection selection;
  selection.kind = *kind;

  const bool has_slope = node.find_attribute("negative_slope") != nullptr;
  if (!activation_uses_alpha(*kind)) {
    if (has_slope) {
      return node_error(node,
                        "attribute 'negative_slope' applies only to activation "
                        "\"leaky_relu\", not \"" +
                            name + "\"");
    }
    return selection;
  }
  if (!has_slope) {
    return node_error(node,
                      "attribute 'negative_slope' (leaky_relu's slope) is required with "
                      "activation \"leaky_relu\"");
  }
  NORMRT_ASSIGN_OR_RETURN(double slope, node.float_attribute("negative_slope", 0.0));
  // The kernels take it as a float: it must stay finite once rounded.
  if (!(slope >= -FLT_MAX && slope <= FLT_MAX)) {
    return node_error(node,
                      "attribute 'negative_slope' must be finite, found " + message_number(slope));
  }
  selection.alpha = static_cast<float>(slope);
  return selection;
}

}  // namespace normrt
