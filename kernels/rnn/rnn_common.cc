#include "kernels/rnn/rnn_common.h"

#include <string_view>

#include "kernels/common/extent.h"

namespace normrt::detail {

LinearEpilogue PreparedNorm::epilogue() const {
  LinearEpilogue e;
  if (enabled) {
    e.normalize = true;
    e.norm = params;
    e.gain = gain_or_null();
    e.norm_bias = bias_or_null();
  } else {
    e.bias = bias_or_null();
  }
  return e;
}

Expected<PreparedNorm> prepare_norm(const CellNormLabel& site, bool enabled,
                                    const NormParams& params, size_t n, const float* gain,
                                    const float* bias, std::initializer_list<const float*> folded,
                                    bool bias_allowed_disabled) {
  const std::string where = std::string(site.cell) + ": " + site.what;
  PreparedNorm p;
  p.enabled = enabled;
  p.n = n;
  if (enabled) {
    // The norm's own checks of its parameters (eps, p and floor(p·n) ≥ 1,
    // a gain for the (1 + g) convention).
    Status s = norm_params_validate(params, n, gain != nullptr);
    if (!s)
      return Status::error(where + " over " + std::to_string(n) + " elements: " + s.message());
    p.params = params;
    p.params.gain_convention = GainConvention::kAsStored;
    if (gain != nullptr) {
      const bool one_plus = params.gain_convention == GainConvention::kOnePlus;
      p.gain.assign(gain, gain + n);
      // 1 + g in float, as the norm kernels form it.
      if (one_plus) {
        for (float& g : p.gain) g = 1.0f + g;
      }
    }
  } else {
    if (gain != nullptr) {
      return Status::error(where + " is not normalized, but " + site.gain_name +
                           " is set (a gain needs the normalization)");
    }
    if (bias != nullptr && !bias_allowed_disabled) {
      return Status::error(where + " is not normalized, but " + site.bias_name + " is set");
    }
  }
  bool any_bias = bias != nullptr;
  for (const float* b : folded) any_bias = any_bias || b != nullptr;
  if (any_bias) {
    p.bias.assign(n, 0.0f);
    if (bias != nullptr) p.bias.assign(bias, bias + n);
    for (const float* b : folded) {
      if (b == nullptr) continue;
      for (size_t i = 0; i < n; ++i) p.bias[i] += b[i];
    }
  }
  return p;
}

Status check_not_null(const char* cell, std::initializer_list<Operand> operands) {
  for (const Operand& o : operands) {
    if (o.p == nullptr) return Status::error(std::string(cell) + ": " + o.name + " is null");
  }
  return Status::ok();
}

Status check_outputs(const char* cell, std::initializer_list<Operand> outputs,
                     std::initializer_list<Operand> inputs,
                     std::initializer_list<std::pair<const char*, const char*>> in_place) {
  // The very same buffer, for a pair named in `in_place`.
  auto allowed = [&](const Operand& out, const Operand& in) {
    if (out.p != in.p || out.n != in.n) return false;
    for (const auto& [out_name, in_name] : in_place) {
      if (std::string_view(out_name) == out.name && std::string_view(in_name) == in.name) {
        return true;
      }
    }
    return false;
  };
  const std::string prefix = std::string(cell) + ": ";
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    const Extent e = extent_of(out->p, 1, 0, out->n);
    for (const Operand& in : inputs) {
      if (in.p == nullptr || !overlap(e, extent_of(in.p, 1, 0, in.n))) continue;
      if (allowed(*out, in)) continue;
      return Status::error(prefix + out->name + " overlaps " + in.name +
                           (out->p == in.p ? " (in place is not allowed for this pair)"
                                           : " (only the very same buffer may be shared)"));
    }
    for (auto other = outputs.begin(); other != out; ++other) {
      if (overlap(e, extent_of(other->p, 1, 0, other->n))) {
        return Status::error(prefix + out->name + " overlaps " + other->name);
      }
    }
  }
  return Status::ok();
}

}  // namespace normrt::detail
