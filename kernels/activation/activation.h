#pragma once
// Element-wise activation functions, as PyTorch defines them:
//   relu(x)      = max(x, 0)
//   gelu_erf(x)  = 0.5·x·(1 + erf(x/√2))                       nn.GELU()
//   gelu_erf_bf16(x): gelu_erf, to the looser bound below
//   gelu_tanh(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))   nn.GELU(approximate="tanh")
//   silu(x)      = x·sigmoid(x)
//   tanh(x)
//   sigmoid(x)   = 1 / (1 + e^−x)
//   leaky_relu(x) = x > 0 ? x : α·x                            nn.LeakyReLU(negative_slope=α)
//
// α is the `alpha` argument of every entry point (oneDNN's eltwise
// convention): leaky_relu's negative slope, ignored by the other activations.
//
// Accuracy contract (checked by tests/kernels against long-double libm on
// every ISA): |y − f(x)| ≤ 1e-6·|f(x)| + 2^-149 (kGeluErfBf16: 2^-12·|f(x)| +
// 2^-149; activation_tolerance()) for every float x, including
// the far tails (gelu_erf(−10) = −7.6e-23, sigmoid(−100) = 3.7e-44, not 0 or
// NaN). Special values follow PyTorch: NaN → NaN; relu(−0) = −0;
// relu(±inf) = inf / 0; leaky_relu(−0) = −0;
// leaky_relu(−inf) = −inf (α > 0) or NaN (α = 0, PyTorch's −inf·0); tanh(±inf) = ±1; sigmoid(±inf)
// = 1 / 0; gelu(+inf) = silu(+inf) = inf, but gelu(−inf) = silu(−inf) = NaN (PyTorch's −inf·0). The
// sign of a zero result is otherwise unspecified. Kernels assume the default floating-point
// environment (no flush-to-zero).

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"

namespace normrt {

enum class Activation {
  kNone,
  kRelu,
  kGeluErf,
  kGeluTanh,
  kSilu,
  kTanh,
  kSigmoid,
  kLeakyRelu,
  /// gelu_erf for an output that is rounded to bf16 or quantized to int8 next
  /// (the fused linear epilogue before such a matmul): the one activation
  /// with a looser contract, |y − f(x)| ≤ 2^-12·|f(x)| + 2^-149 (an eighth of
  /// bf16's half step), and cheaper than gelu_erf.
  kGeluErfBf16,
};

/// Every activation, in declaration order (kNone is the identity).
inline constexpr Activation kAllActivations[] = {
    Activation::kNone,     Activation::kRelu,      Activation::kGeluErf,
    Activation::kGeluTanh, Activation::kSilu,      Activation::kTanh,
    Activation::kSigmoid,  Activation::kLeakyRelu, Activation::kGeluErfBf16,
};

/// The relative part of an activation's error bound: 1e-6 (the contract
/// above), or 2^-12 for kGeluErfBf16.
double activation_tolerance(Activation activation);

/// "none", "relu", "gelu_erf", "gelu_tanh", "silu", "tanh", "sigmoid", "leaky_relu" or
/// "gelu_erf_bf16"; "invalid" for a value outside the enum.
const char* activation_name(Activation activation);

/// The inverse of activation_name(); an error naming the valid names otherwise.
Expected<Activation> activation_from_name(std::string_view name);

/// True for the activations that read `alpha` (leaky_relu).
bool activation_uses_alpha(Activation activation);

/// y[i] = f(x[i]) for i < n. Any n (0 is a no-op), any alignment; y == x
/// (in place) is allowed, other overlap is not. Preconditions (asserted in
/// debug builds, checked by activate()): a valid enum value, a finite alpha,
/// non-null pointers when n > 0.
using ActivationKernel = void (*)(Activation activation, float alpha, const float* x, float* y,
                                  size_t n);

/// One compiled activation kernel: the unit that dispatch, tests and
/// benchmarks iterate.
struct ActivationVariant : KernelVariant {
  ActivationKernel kernel;
};

/// Every activation variant compiled into this build (activation_variants.cc),
/// in order of preference within an ISA.
const std::vector<ActivationVariant>& activation_variants();

/// The kernel of first_variant_for(activation_variants(), isa), or nullptr if
/// this build has none.
ActivationKernel activation_kernel_for(Isa isa);

/// The kernel for selected_isa(), resolved once.
Expected<ActivationKernel> selected_activation_kernel();

/// Validates the arguments (enum value, alpha, null pointers, partial
/// overlap), then runs the selected kernel. The convenient checked entry point.
Status activate(Activation activation, float alpha, const float* x, float* y, size_t n);

}  // namespace normrt
