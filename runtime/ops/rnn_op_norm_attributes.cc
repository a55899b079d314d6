#include "runtime/ops/rnn_op_norm_attributes.h"

#include <cfloat>
#include <string>

namespace normrt::seq_op {

Expected<NormAttributes> parse_norm_attributes(const NodeChecker& c) {
  NormAttributes result;
  Expected<size_t> kind = c.choice("norm", 0, {"none", "layer_norm", "rms_norm", "prms_norm"});
  if (!kind) return kind.status();
  result.enabled = *kind != 0;
  NormParams& params = result.params;
  params.kind = *kind == 2   ? NormKind::kRmsNorm
                : *kind == 3 ? NormKind::kRmsNormPartial
                             : NormKind::kLayerNorm;

  Expected<double> eps = c.finite_float("eps", 1e-5);
  if (!eps) return eps.status();
  if (!(*eps >= 0.0 && *eps <= FLT_MAX)) {
    return c.error("attribute 'eps' must be finite and >= 0, found " + std::to_string(*eps));
  }
  params.eps = static_cast<float>(*eps);
  Expected<size_t> placement = c.choice("eps_placement", 0, {"inside_sqrt", "added_to_rms"});
  if (!placement) return placement.status();
  params.eps_placement = *placement == 0 ? EpsPlacement::kInsideSqrt : EpsPlacement::kAddedToRms;
  Expected<size_t> gain = c.choice("gain_convention", 0, {"as_stored", "one_plus"});
  if (!gain) return gain.status();
  params.gain_convention = *gain == 0 ? GainConvention::kAsStored : GainConvention::kOnePlus;

  const bool has_p = c.node().find_attribute("p") != nullptr;
  if (has_p && !(result.enabled && params.kind == NormKind::kRmsNormPartial)) {
    return c.error("attribute 'p' applies only to norm 'prms_norm'");
  }
  if (result.enabled && params.kind == NormKind::kRmsNormPartial) {
    if (!has_p) {
      return c.error("attribute 'p' is required with norm 'prms_norm'");
    }
    Expected<double> p = c.finite_float("p", 1.0);
    if (!p) return p.status();
    if (!(*p > 0.0 && *p <= 1.0)) {
      return c.error("attribute 'p' must be in (0, 1], found " + std::to_string(*p));
    }
    params.partial_fraction = *p;
  }
  return result;
}

}  // namespace normrt::seq_op
