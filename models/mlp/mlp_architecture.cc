// The registry entry of the normalized MLP (mlp_builder.h): normrt's config
// with "architecture": "mlp" | "ln_mlp" (docs/models_rnn.md); its reader.
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "models/architecture_support.h"
#include "models/config_checks.h"
#include "models/config_json.h"
#include "models/mlp/mlp_builder.h"
#include "models/registry.h"
#include "models/rnn/rnn_config.h"

namespace normrt {

Expected<MlpConfig> read_mlp_config(const JsonConfig& config) {
  NORMRT_RETURN_IF_ERROR(check_known_keys(config, rnn_mlp_config_keys(), kRnnMlpKeysDocumented));
  MlpConfig c;
  for (auto [key, field, required] :
       {std::tuple<const char*, int64_t*, bool>{"input_size", &c.input_size, true},
        {"output_size", &c.output_size, true},
        {"max_sequence_length", &c.max_sequence_length, false}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, required));
  if (config.has("hidden_sizes")) {
    const nlohmann::json& sizes = config.root()["hidden_sizes"];
    if (!sizes.is_array())
      return Status::error(config.description() +
                           ": key 'hidden_sizes', expected a list of integers, found " +
                           sizes.type_name());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!sizes[i].is_number_integer())
        return Status::error(config.description() + ": key 'hidden_sizes'[" + std::to_string(i) +
                             "], expected an integer, found " + sizes[i].dump());
      if (c.hidden_sizes.size() > 64)
        return Status::error(config.description() +
                             ": key 'hidden_sizes' has more than 64 entries");
      c.hidden_sizes.push_back(sizes[i].get<int64_t>());
    }
  }
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  if (Status s = check_mlp_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  for (size_t i = 0; i < c.hidden_sizes.size(); ++i) {
    const std::string what = "hidden_sizes[" + std::to_string(i) + "]";
    if (Status s = check_partial_width(c.norm, c.hidden_sizes[i], what, "key 'p' ="); !s)
      return Status::error(config.description() + ": " + s.message());
  }
  return c;
}

namespace {

Expected<MlpConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_norm_and_pooling(options, "mlp"));
  NORMRT_ASSIGN_OR_RETURN(MlpConfig c, read_mlp_config(config));
  if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
  return c;
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(MlpConfig c, plan(config, options));
  NORMRT_ASSIGN_OR_RETURN(Graph graph, build_ln_mlp(c, weights, options.dtype));
  return one_graph(std::move(graph));
}

}  // namespace

const Architecture& mlp_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "mlp";
    a.match.architecture = {"mlp", "ln_mlp"};
    a.read_config = read;
    a.build = build;
    return a;
  }();
  return entry;
}

}  // namespace normrt
