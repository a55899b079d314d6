#include "models/seed_config_support.h"

#include <nlohmann/json.hpp>
#include <set>

namespace normrt {

Status check_seed_config_keys(const JsonConfig& config, std::vector<std::string> keys,
                              const char* doc) {
  for (const char* key : {"norm", "eps", "eps_placement", "gain_convention", "p", "architecture"})
    keys.push_back(key);
  const std::set<std::string> known(keys.begin(), keys.end());
  std::string unknown;
  for (const auto& item : config.root().items())
    if (!known.count(item.key())) unknown += (unknown.empty() ? "'" : ", '") + item.key() + "'";
  if (!unknown.empty())
    return Status::error(config.description() + ": unknown key(s) " + unknown + " (" + doc +
                         " lists the keys)");
  if (!config.has("norm"))
    return Status::error(config.description() +
                         ": key 'norm' is required (none, layer_norm, rms_norm or prms_norm)");
  return Status::ok();
}

Status read_bool_fields(const JsonConfig& config,
                        std::initializer_list<std::pair<const char*, bool*>> fields) {
  for (auto [key, field] : fields) {
    NORMRT_ASSIGN_OR_RETURN(bool value, config.optional_bool(key, *field));
    *field = value;
  }
  return Status::ok();
}

Expected<std::string> seed_weight_format(const JsonConfig& config,
                                         const std::string& weights_file) {
  const bool npz =
      weights_file.size() >= 4 && weights_file.substr(weights_file.size() - 4) == ".npz";
  return config.optional_string("weight_format", npz ? "theano" : "torch");
}

Status with_config_file(const JsonConfig& config, Status s) {
  return s ? s : Status::error(config.description() + ": " + s.message());
}

Status refuse_seed_options(const ModelBuildOptions& options, const std::string& architecture) {
  if (!options.norm.empty())
    return Status::error("--norm applies to BERT, Llama and Nematus checkpoints; the " +
                         architecture + " config sets its norm with the key 'norm'");
  if (options.pooling.mode != "none")
    return Status::error("--pooling applies to BERT encoders only, not to " + architecture);
  if (options.dtype != DataType::kF32)
    return Status::error("--dtype bf16: " + architecture + " is converted with f32 weights only");
  return Status::ok();
}

}  // namespace normrt
