// The registry entry of ConvPool-CNN-C (convpool_cnn_c.h): normrt's JSON
// config ("architecture": "convpool_cnn_c", docs/cnn.md) with the widths,
// the norm and its convention, the leaky ReLU slope.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "models/architecture_support.h"
#include "models/cnn/convpool_cnn_c.h"
#include "models/config_json.h"
#include "models/registry.h"

namespace normrt {
namespace {

const std::set<std::string>& cnn_keys() {
  static const std::set<std::string> keys = {"architecture",
                                             "in_channels",
                                             "image_size",
                                             "stage1_channels",
                                             "stage2_channels",
                                             "num_classes",
                                             "batch",
                                             "norm",
                                             "eps",
                                             "eps_placement",
                                             "gain_convention",
                                             "p",
                                             "negative_slope",
                                             "normalize_dense",
                                             "conv_algorithm"};
  return keys;
}

}  // namespace

Expected<ConvPoolCnnConfig> read_convpool_cnn_config(const JsonConfig& config) {
  NORMRT_RETURN_IF_ERROR(check_known_keys(
      config, cnn_keys(), "docs/cnn.md lists the keys of the convpool_cnn_c config"));
  ConvPoolCnnConfig c;
  for (auto [key, field] : {std::tuple<const char*, int64_t*>{"in_channels", &c.in_channels},
                            {"image_size", &c.image_size},
                            {"stage1_channels", &c.stage1_channels},
                            {"stage2_channels", &c.stage2_channels},
                            {"num_classes", &c.num_classes},
                            {"batch", &c.batch}}) {
    NORMRT_ASSIGN_OR_RETURN(int64_t value, config.optional_int(key, *field));
    *field = value;
  }
  NORMRT_ASSIGN_OR_RETURN(double slope, config.optional_double("negative_slope", c.negative_slope));
  c.negative_slope = slope;
  NORMRT_ASSIGN_OR_RETURN(std::string algorithm,
                          config.optional_string("conv_algorithm", c.conv_algorithm));
  c.conv_algorithm = algorithm;
  NORMRT_ASSIGN_OR_RETURN(bool dense, config.optional_bool("normalize_dense", c.normalize_dense));
  c.normalize_dense = dense;
  // The norm is required: a CNN config that forgot it would silently get LayerNorm.
  if (!config.has("norm")) {
    return Status::error(config.description() +
                         ": key 'norm' is required (none, layer_norm, rms_norm or prms_norm)");
  }
  // The authors' eps (1e-6) unless the config says otherwise.
  NORMRT_ASSIGN_OR_RETURN(double eps, config.optional_double("eps", 1e-6));
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  c.norm.eps = eps;
  if (Status s = check_convpool_cnn_config(c); !s) {
    return Status::error(config.description() + ": " + s.message());
  }
  return c;
}

namespace {

Expected<ConvPoolCnnConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_norm_and_pooling(options, "convpool_cnn_c"));
  if (options.max_sequence_length > 0) {
    return Status::error(
        "--max-seq does not apply to convpool_cnn_c: its batch is the config's "
        "key 'batch'");
  }
  if (options.dtype != DataType::kF32) {
    return Status::error("--dtype bf16: convpool_cnn_c's convolutions run in f32 only");
  }
  return read_convpool_cnn_config(config);
}

using Entry = PlannedGraph<ConvPoolCnnConfig, plan, build_convpool_cnn_c>;

}  // namespace

const Architecture& convpool_cnn_c_architecture() {
  static const Architecture entry = Entry::entry("convpool_cnn_c");
  return entry;
}

}  // namespace normrt
