// The registry entry of order embeddings (order_embeddings.h): normrt's
// JSON config ("architecture": "order_embeddings", docs/order_embeddings.md);
// the norm is required; --max-seq sets the longest sentence.
#include <string>

#include "models/architecture_support.h"
#include "models/config_json.h"
#include "models/order/order_embeddings.h"
#include "models/registry.h"
#include "models/seed_config_support.h"

namespace normrt {
namespace {

constexpr const char* kName = "order_embeddings";

Expected<OrderEmbeddingConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_seed_options(options, kName));
  NORMRT_RETURN_IF_ERROR(
      check_seed_config_keys(config,
                             {"vocab_size", "word_size", "dim", "image_size", "num_images", "abs",
                              "max_sentence_length", "weight_format"},
                             "docs/order_embeddings.md"));
  OrderEmbeddingConfig c;
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"vocab_size", &c.vocab_size},
                            {"word_size", &c.word_size},
                            {"dim", &c.dim},
                            {"image_size", &c.image_size}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, true));
  NORMRT_RETURN_IF_ERROR(read_int_field(config, "num_images", &c.num_images, false));
  NORMRT_RETURN_IF_ERROR(
      read_int_field(config, "max_sentence_length", &c.max_sentence_length, false));
  NORMRT_RETURN_IF_ERROR(read_bool_fields(config, {{"abs", &c.abs}}));
  NORMRT_ASSIGN_OR_RETURN(c.weight_format, seed_weight_format(config, options.weights_file));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  if (options.max_sequence_length > 0) c.max_sentence_length = options.max_sequence_length;
  NORMRT_RETURN_IF_ERROR(with_config_file(config, check_order_embedding_config(c)));
  return c;
}

using Entry = PlannedGraph<OrderEmbeddingConfig, plan, build_order_embeddings>;

}  // namespace

const Architecture& order_embeddings_architecture() {
  static const Architecture entry = Entry::entry(kName);
  return entry;
}

}  // namespace normrt
