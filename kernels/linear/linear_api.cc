// The variant choice, argument validation and the checked entry points of the
// linear kernels (the list itself: linear_variants.cc). Dispatch is by the
// variant the weights were packed for: the kernel pointer is chosen once, at
// pack time.

#include <cstdint>
#include <string>

#include "kernels/common/extent.h"
#include "kernels/common/isa.h"
#include "kernels/common/tuning_choice.h"
#include "kernels/linear/linear_variants.h"

namespace normrt {
namespace {

std::string num(size_t value) { return std::to_string(value); }

// Bytes of the floats [first, last) of an operand.
Extent span_of(const float* base, size_t first, size_t last) {
  return extent_of(base + first, 1, 0, last - first);
}

// Whether one vdpbf16ps (32 multiply-adds) retires as fast as an FMA (16):
// on Zen 4 and 5 it does, and the bf16-activation GEMM ran at 1.8× the f32
// one's GFLOP/s; on an Intel Xeon with AMX it retires at a quarter of the
// FMA's instruction rate, so at half its multiply-adds (loops of independent
// ones: 122 against 245 GFLOP/s), and the kernel ran at
// 0.55-0.57× the f32 GEMM (Intel's bf16 arithmetic is AMX). NORMRT_BF16_DOT=0
// or 1 overrides it.
bool bf16_dot_pays() {
  static const bool pays =
      tuning_choice("NORMRT_BF16_DOT", "0", "1", !cpu_vendor_is("GenuineIntel"));
  return pays;
}

}  // namespace

const char* weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::kF32:
      return "f32";
    case WeightType::kBF16:
      return "bf16";
    case WeightType::kInt8:
      return "int8";
  }
  return "invalid";
}

bool linear_variant_runnable(const LinearVariant& variant) {
  return kernel_variant_runnable(variant);
}

Expected<LinearVariantChoice> choose_linear_variant(WeightType type, Isa isa,
                                                    bool (*runnable)(const LinearVariant&)) {
  NORMRT_RETURN_IF_ERROR(check_isa_runnable(isa));
  // `isa`, then the lower ISAs of its family: AVX-512 → AVX2 → scalar, NEON → scalar.
  std::vector<Isa> order = {isa};
  if (isa == Isa::kAvx512) order.push_back(Isa::kAvx2);
  if (isa != Isa::kScalar) order.push_back(Isa::kScalar);
  std::string passed;  // the variants passed over, and why
  for (Isa candidate : order) {
    for (const LinearVariant& v : linear_variants()) {
      if (v.isa != candidate || v.type != type || v.rounds_x_to_bf16) continue;
      if (runnable(v)) {
        LinearVariantChoice choice;
        choice.variant = &v;
        choice.reason = std::string(v.name) + ": ";
        if (!passed.empty()) choice.reason += "fallback; " + passed + "; ";
        choice.reason += std::string("the best runnable ") + weight_type_name(type) +
                         " kernel for " + isa_name(isa);
        if (v.feature != CpuFeature::kNone) {
          choice.reason += std::string(" (this CPU has ") + cpu_feature_name(v.feature) + ")";
        }
        return choice;
      }
      if (!passed.empty()) passed += "; ";
      passed += std::string(v.name) + " needs " +
                (v.feature != CpuFeature::kNone ? cpu_feature_name(v.feature) : isa_name(v.isa)) +
                ", which this CPU lacks";
    }
  }
  return Status::error(std::string("no runnable ") + weight_type_name(type) +
                       " linear kernel for " + isa_name(isa) +
                       (passed.empty() ? std::string(" in this build") : " (" + passed + ")"));
}

Expected<LinearVariantChoice> choose_linear_variant_bf16_activations(Isa isa) {
  NORMRT_ASSIGN_OR_RETURN(LinearVariantChoice accurate,
                          choose_linear_variant(WeightType::kBF16, isa));
  std::string passed;
  for (const LinearVariant& v : linear_variants()) {
    if (v.type != WeightType::kBF16 || !v.rounds_x_to_bf16 || v.isa != isa) continue;
    if (linear_variant_runnable(v)) {
      if (!bf16_dot_pays()) {
        accurate.reason = std::string("bf16 activations requested, but on this CPU (") +
                          cpu_vendor() + ") " + v.name +
                          "'s vdpbf16ps does half the FMA's multiply-adds per cycle: the accurate "
                          "path; " +
                          accurate.reason;
        return accurate;
      }
      LinearVariantChoice choice;
      choice.variant = &v;
      choice.reason = std::string(v.name) +
                      ": bf16 activations requested: x rounded to bf16, one vdpbf16ps per k pair";
      return choice;
    }
    passed = std::string(v.name) + " needs avx512_bf16, which this CPU lacks";
  }
  accurate.reason =
      "bf16 activations requested, but " +
      (passed.empty() ? std::string("this build has no such kernel for ") + isa_name(isa)
                      : passed) +
      " (and no AMX): the accurate path; " + accurate.reason;
  return accurate;
}

size_t linear_column_boundary(const PackedWeights& w, size_t column) {
  if (w.empty()) return 0;
  const size_t p = w.panel_width();
  const size_t rounded = (column + p - 1) / p * p;
  return rounded < w.n() ? rounded : w.n();
}

Status linear_validate(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                       const float* y, size_t y_stride, size_t n_begin, size_t n_end,
                       const float* bias) {
  if (w.empty()) return Status::error("linear: the weights are empty (never packed)");
  const size_t n = w.n(), k = w.k(), p = w.panel_width();
  if (n_begin > n_end || n_end > n) {
    return Status::error("linear: column range [n_begin, n_end) = [" + num(n_begin) + ", " +
                         num(n_end) + ") is not inside [0, n) = [0, " + num(n) + ")");
  }
  if (n_begin % p != 0 && n_begin != n) {
    return Status::error("linear: n_begin (" + num(n_begin) +
                         ") must be a multiple of the panel width " + num(p) + " of " +
                         w.variant().name);
  }
  if (n_end % p != 0 && n_end != n) {
    return Status::error("linear: n_end (" + num(n_end) +
                         ") must be a multiple of the panel width " + num(p) + " of " +
                         w.variant().name + " or n (" + num(n) + ")");
  }
  if (m == 0 || n_begin == n_end) return Status::ok();
  if (x == nullptr) return Status::error("linear: x is null");
  if (y == nullptr) return Status::error("linear: y is null");
  if (m > 1 && x_stride < k) {
    return Status::error("linear: x_stride (" + num(x_stride) + ") is smaller than k (" + num(k) +
                         ")");
  }
  if (m > 1 && y_stride < n) {
    return Status::error("linear: y_stride (" + num(y_stride) + ") is smaller than n (" + num(n) +
                         ")");
  }
  const Extent y_span = span_of(y, n_begin, (m - 1) * y_stride + n_end);
  if (overlap(y_span, span_of(x, 0, (m - 1) * x_stride + k))) {
    return Status::error("linear: y overlaps x (the kernel reads x while writing y)");
  }
  if (bias != nullptr && overlap(y_span, span_of(bias, n_begin, n_end))) {
    return Status::error("linear: y overlaps bias");
  }
  const auto* weights = static_cast<const std::byte*>(w.data());
  if (overlap(y_span, Extent{reinterpret_cast<uintptr_t>(weights),
                             reinterpret_cast<uintptr_t>(weights + w.size_bytes())})) {
    return Status::error("linear: y overlaps the packed weights");
  }
  return Status::ok();
}

Status linear_columns(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
                      size_t y_stride, size_t n_begin, size_t n_end, const float* bias) {
  NORMRT_RETURN_IF_ERROR(linear_validate(w, x, m, x_stride, y, y_stride, n_begin, n_end, bias));
  if (m == 0 || n_begin == n_end) return Status::ok();
  w.variant().kernel(detail::linear_args(w, x, m, x_stride, y, y_stride, n_begin, n_end, bias));
  return Status::ok();
}

namespace detail {
LinearArgs linear_args(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
                       size_t y_stride, size_t n_begin, size_t n_end, const float* bias) {
  LinearArgs args;
  args.weights = static_cast<const std::byte*>(w.data());
  args.panel_bytes = w.panel_bytes();
  args.k = w.k();
  args.x = x;
  args.m = m;
  args.x_stride = x_stride;
  args.y = y;
  args.y_stride = y_stride;
  args.n_begin = n_begin;
  args.n_end = n_end;
  args.bias = bias;
  args.layer_bytes = w.size_bytes();
  return args;
}
}  // namespace detail

Status linear(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
              size_t y_stride, const float* bias) {
  return linear_columns(w, x, m, x_stride, y, y_stride, 0, w.n(), bias);
}

}  // namespace normrt
