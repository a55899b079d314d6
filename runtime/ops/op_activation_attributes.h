#pragma once
// The activation of a node as attributes, shared by every op that activates
// (Activation, FusedLinear, Conv2d):
//
//   activation       an activation_name(): "none", "relu", ..., "leaky_relu"
//   negative_slope   float, finite: leaky_relu's α (nn.LeakyReLU's
//                    negative_slope); required with "leaky_relu", rejected
//                    with any other activation
//
// Errors name the node, the attribute, the expected and the found value.
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/activation/activation.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// "activation", "negative_slope".
extern const std::vector<std::string_view> kActivationAttributeNames;

/// An activation and its parameter, as the kernels take them.
struct ActivationSelection {
  Activation kind = Activation::kNone;
  float alpha = 0.0f;  ///< leaky_relu's slope; 0 for the others
};

/// Reads "activation" (an error if absent and `required`, else "none") and
/// "negative_slope".
Expected<ActivationSelection> activation_from_attributes(const Node& node, bool required);

}  // namespace normrt
