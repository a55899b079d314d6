#pragma once
// Internal: what the LN-LSTM and LN-GRU cells share. A normalization of one
// vector, N(v; α, β), prepared at load for the fused linear epilogue, and the
// argument checks of the step functions.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/linear/fused_linear.h"
#include "kernels/norm/norm.h"

namespace normrt::detail {

/// N(v; α, β) over vectors of n elements, ready to apply:
///   enabled:  norm(v)·g' + β, with g' = α (or 1 + α, converted once here, so
///             params.gain_convention is kAsStored) and β including any bias
///             folded into it;
///   disabled: v + β (the plain cell); there is no α.
struct PreparedNorm {
  bool enabled = false;
  NormParams params;
  size_t n = 0;
  std::vector<float> gain;  ///< (n) g', or empty
  std::vector<float> bias;  ///< (n) β plus folded biases, or empty

  const float* gain_or_null() const { return gain.empty() ? nullptr : gain.data(); }
  const float* bias_or_null() const { return bias.empty() ? nullptr : bias.data(); }
  /// The normalization for the statistic: the first stat_count() elements.
  size_t stat_count() const { return enabled ? norm_stat_count(params, n) : 0; }

  /// fused_linear's epilogue: normalized with gain and bias, or a plain bias.
  LinearEpilogue epilogue() const;
};

/// Describes one normalization for prepare_norm's messages.
struct CellNormLabel {
  const char* cell;       ///< "ln_lstm"
  const char* what;       ///< "N(W_h·h_{t-1})"
  const char* gain_name;  ///< "gain_h"
  const char* bias_name;  ///< "bias_h"
};

/// Validates and prepares N(v; α, β) over n elements. `gain` and `bias` are
/// (n) or null; `folded` are further (n) biases (or nulls) added to β. A
/// disabled normalization rejects a gain; `bias_allowed_disabled` says
/// whether it may carry a bias (added as v + β).
Expected<PreparedNorm> prepare_norm(const CellNormLabel& site, bool enabled,
                                    const NormParams& params, size_t n, const float* gain,
                                    const float* bias, std::initializer_list<const float*> folded,
                                    bool bias_allowed_disabled);

/// An operand of a step for the aliasing checks: n floats at p.
struct Operand {
  const char* name;
  const float* p;
  size_t n;
};

/// ok, or "<cell>: <name> is null".
Status check_not_null(const char* cell, std::initializer_list<Operand> operands);

/// Each output must not overlap any input (null inputs are skipped) or another
/// output, except that an output may be the very same buffer as an input when
/// the pair (output name, input name) is listed in `in_place`.
Status check_outputs(const char* cell, std::initializer_list<Operand> outputs,
                     std::initializer_list<Operand> inputs,
                     std::initializer_list<std::pair<const char*, const char*>> in_place);

}  // namespace normrt::detail
