// The registry entry of Graves' handwriting network (handwriting_model.h):
// normrt's JSON config ("architecture": "handwriting", docs/handwriting.md);
// the norm is required; --max-seq sets the longest predicted sequence.
#include <string>

#include "models/architecture_support.h"
#include "models/config_json.h"
#include "models/handwriting/handwriting_model.h"
#include "models/registry.h"
#include "models/seed_config_support.h"

namespace normrt {
namespace {

constexpr const char* kName = "handwriting";

Expected<HandwritingConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_seed_options(options, kName));
  NORMRT_RETURN_IF_ERROR(
      check_seed_config_keys(config,
                             {"hidden_size", "num_layers", "components", "skip_connections",
                              "graph", "max_sequence_length", "seed"},
                             "docs/handwriting.md"));
  HandwritingConfig c;
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"hidden_size", &c.hidden_size},
                            {"num_layers", &c.num_layers},
                            {"components", &c.components},
                            {"max_sequence_length", &c.max_sequence_length},
                            {"seed", &c.seed}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, false));
  NORMRT_RETURN_IF_ERROR(read_bool_fields(config, {{"skip_connections", &c.skip_connections}}));
  NORMRT_ASSIGN_OR_RETURN(c.graph, config.optional_string("graph", c.graph));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
  NORMRT_RETURN_IF_ERROR(with_config_file(config, check_handwriting_config(c)));
  return c;
}

using Entry = PlannedGraph<HandwritingConfig, plan, build_handwriting_model>;

}  // namespace

const Architecture& handwriting_architecture() {
  static const Architecture entry = Entry::entry(kName);
  return entry;
}

}  // namespace normrt
