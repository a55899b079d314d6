#include "models/config_checks.h"

#include "kernels/norm/norm.h"

namespace normrt {

Status check_config_range(const std::string& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::ok();
  return Status::error("config: " + field + " = " + std::to_string(value) + " is outside [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

Status check_partial_keeps_one(const NormConfig& norm, int64_t width, const std::string& what) {
  if (!norm.is(NormKind::kPRmsNorm)) return Status::ok();
  if (norm_stat_count(norm.params(), static_cast<size_t>(width)) > 0) return Status::ok();
  return Status::error("config: p = " + std::to_string(norm.p) + " keeps floor(p·" +
                       std::to_string(width) + ") = 0 " + what);
}

Status check_seed_weight_format(const std::string& weight_format) {
  if (weight_format == "theano" || weight_format == "torch") return Status::ok();
  return Status::error("config: weight_format '" + weight_format + "' is not theano or torch");
}

}  // namespace normrt
