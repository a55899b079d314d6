#include "models/config_checks.h"

#include <cstdio>

#include "kernels/norm/norm.h"

namespace normrt {

Status check_config_range(const std::string& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::ok();
  return Status::error("config: " + field + " = " + std::to_string(value) + " is outside [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

Status check_partial_width(const NormConfig& norm, int64_t width, const std::string& what,
                           const std::string& p_name) {
  if (!norm.is(NormKind::kPRmsNorm) || width <= 0) return Status::ok();
  const size_t n = static_cast<size_t>(width);
  if (norm_stat_count(norm.params(), n) >= 1) return Status::ok();
  auto number = [](const char* format, double value) {
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return std::string(text);
  };
  const std::string w = std::to_string(n);
  return Status::error(p_name + " " + number("%g", norm.p) +
                       " leaves pRMSNorm no element to average over " + what + " = " + w +
                       " (floor(p·" + w + ") = 0): p must be at least 1/" + w + " = " +
                       number("%.6g", 1.0 / static_cast<double>(n)));
}

Status check_seed_weight_format(const std::string& weight_format) {
  if (weight_format == "theano" || weight_format == "torch") return Status::ok();
  return Status::error("config: weight_format '" + weight_format + "' is not theano or torch");
}

}  // namespace normrt
