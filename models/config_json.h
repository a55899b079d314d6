#pragma once
// What the config readers of every architecture share: normrt's norm keys,
// the pRMSNorm width rule, a check against a documented key list, and
// integer fields read into a struct. Each architecture's reader lives next
// to its builder (models/<family>/*_config.cc); every error names the config
// file and the key.
#include <cstdint>
#include <set>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"

namespace normrt {

/// The keys norm, eps, eps_placement, gain_convention and p (docs/models_rnn.md);
/// "p" with a norm other than prms_norm is an error.
Expected<NormConfig> read_norm_config(const JsonConfig& config);

/// An error listing every top-level key of `config` outside `keys`;
/// `documented` says where the keys are listed ("docs/cnn.md lists the keys
/// of the convpool_cnn_c config").
Status check_known_keys(const JsonConfig& config, const std::set<std::string>& keys,
                        const std::string& documented);

/// Reads `key` into `*field`: required, or with `*field` as the default.
Status read_int_field(const JsonConfig& config, const char* key, int64_t* field, bool required);

}  // namespace normrt
