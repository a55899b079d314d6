#pragma once
// What the registry entries of the seeds' remaining systems share
// (attentive_reader, order_embeddings, handwriting: normrt's own JSON
// configs, docs/attentive_reader.md, docs/order_embeddings.md,
// docs/handwriting.md): the key check with the norm required, boolean
// fields, the weight format's default, and the options they refuse.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/registry.h"

namespace normrt {

/// An error for a key outside `keys` + the norm keys + "architecture"
/// (`doc` lists them), or a config without "norm".
Status check_seed_config_keys(const JsonConfig& config, std::vector<std::string> keys,
                              const char* doc);

/// Reads each boolean key into its field, the field's value the default.
Status read_bool_fields(const JsonConfig& config,
                        std::initializer_list<std::pair<const char*, bool*>> fields);

/// "weight_format": default "theano" for a .npz weights file, else "torch".
Expected<std::string> seed_weight_format(const JsonConfig& config, const std::string& weights_file);

/// A builder's own check, its message prefixed with the config file.
Status with_config_file(const JsonConfig& config, Status s);

/// --norm, --pooling and --dtype bf16 are refused (f32 models whose config
/// names the norm).
Status refuse_seed_options(const ModelBuildOptions& options, const std::string& architecture);

}  // namespace normrt
