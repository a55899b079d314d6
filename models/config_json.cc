#include "models/config_json.h"

#include <nlohmann/json.hpp>

#include "kernels/norm/norm.h"

namespace normrt {

Expected<NormConfig> read_norm_config(const JsonConfig& config) {
  const NormConfig defaults;
  Expected<std::string> kind = config.optional_string("norm", norm_name(defaults));
  Expected<double> eps = config.optional_double("eps", defaults.eps);
  Expected<std::string> placement =
      config.optional_string("eps_placement", eps_placement_name(defaults.eps_placement));
  Expected<std::string> gain =
      config.optional_string("gain_convention", gain_convention_name(defaults.gain_convention));
  for (const Status& s : {kind.status(), eps.status(), placement.status(), gain.status()})
    if (!s) return s;
  double p = 0.0;
  if (kind.value() == norm_kind_name(NormKind::kPRmsNorm)) {
    NORMRT_ASSIGN_OR_RETURN(p, config.require_double("p"));
  } else if (config.has("p")) {  // ignored, it would hide a misspelt or wrong "norm"
    return Status::error(config.description() + ": key 'p' applies to norm \"prms_norm\" only, " +
                         "found with norm \"" + kind.value() + "\"");
  }
  Expected<NormConfig> norm = norm_config_from_names(*kind, *eps, *placement, *gain, p);
  if (!norm) return Status::error(config.description() + ": " + norm.status().message());
  return norm;
}

Status check_known_keys(const JsonConfig& config, const std::set<std::string>& keys,
                        const std::string& documented) {
  std::string unknown;
  for (const auto& item : config.root().items())
    if (!keys.count(item.key())) unknown += (unknown.empty() ? "'" : ", '") + item.key() + "'";
  if (unknown.empty()) return Status::ok();
  return Status::error(config.description() + ": unknown key(s) " + unknown + " (" + documented +
                       ")");
}

Status read_int_field(const JsonConfig& config, const char* key, int64_t* field, bool required) {
  NORMRT_ASSIGN_OR_RETURN(int64_t value,
                          required ? config.require_int(key) : config.optional_int(key, *field));
  *field = value;
  return Status::ok();
}

}  // namespace normrt
