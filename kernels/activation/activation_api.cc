// Names, argument validation and ISA dispatch of the activation kernels.

#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/activation/activation.h"

namespace normrt {

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluErf:
      return "gelu_erf";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kSilu:
      return "silu";
    case Activation::kTanh:
      return "tanh";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kLeakyRelu:
      return "leaky_relu";
    case Activation::kGeluErfBf16:
      return "gelu_erf_bf16";
  }
  return "invalid";
}

double activation_tolerance(Activation activation) {
  return activation == Activation::kGeluErfBf16 ? 0x1p-12 : 1e-6;
}

Expected<Activation> activation_from_name(std::string_view name) {
  std::string valid;
  for (Activation activation : kAllActivations) {
    if (name == activation_name(activation)) return activation;
    valid += valid.empty() ? "" : ", ";
    valid += activation_name(activation);
  }
  return Status::error("unknown activation '" + std::string(name) + "' (expected one of: " + valid +
                       ")");
}

bool activation_uses_alpha(Activation activation) { return activation == Activation::kLeakyRelu; }

ActivationKernel activation_kernel_for(Isa isa) {
  const ActivationVariant* variant = first_variant_for(activation_variants(), isa);
  return variant != nullptr ? variant->kernel : nullptr;
}

Expected<ActivationKernel> selected_activation_kernel() {
  NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
  return activation_kernel_for(isa);
}

Status activate(Activation activation, float alpha, const float* x, float* y, size_t n) {
  if (std::string_view(activation_name(activation)) == "invalid") {
    return Status::error("activate: invalid activation value " +
                         std::to_string(static_cast<int>(activation)));
  }
  if (activation_uses_alpha(activation) && !std::isfinite(alpha)) {
    return Status::error(std::string("activate: ") + activation_name(activation) +
                         "'s alpha must be finite (got " + std::to_string(alpha) + ")");
  }
  if (n == 0) return Status::ok();
  if (x == nullptr) return Status::error("activate: x is null");
  if (y == nullptr) return Status::error("activate: y is null");
  // In place (y == x) is fine: each element is read before it is written.
  // Any other overlap would read elements already overwritten.
  const uintptr_t xb = reinterpret_cast<uintptr_t>(x), yb = reinterpret_cast<uintptr_t>(y);
  const uintptr_t bytes = n * sizeof(float);
  if (x != y && xb < yb + bytes && yb < xb + bytes) {
    return Status::error("activate: x and y overlap without being the same buffer");
  }
  static const Expected<ActivationKernel> kernel = selected_activation_kernel();
  if (!kernel) return kernel.status();
  (*kernel)(activation, alpha, x, y, n);
  return Status::ok();
}

}  // namespace normrt
