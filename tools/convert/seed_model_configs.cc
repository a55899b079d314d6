#include "tools/convert/seed_model_configs.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/convert/model_config.h"

namespace normrt {
namespace {

const std::vector<std::string> kNormKeys = {"norm", "eps", "eps_placement", "gain_convention", "p"};

Status check_keys(const JsonConfig& config, std::vector<std::string> keys, const char* doc) {
  keys.insert(keys.end(), kNormKeys.begin(), kNormKeys.end());
  keys.push_back("architecture");
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

Status read_ints(const JsonConfig& config,
                 std::initializer_list<std::pair<const char*, int64_t*>> fields, bool required) {
  for (auto [key, field] : fields) {
    if (required) {
      NORMRT_ASSIGN_OR_RETURN(int64_t value, config.require_int(key));
      *field = value;
    } else {
      NORMRT_ASSIGN_OR_RETURN(int64_t value, config.optional_int(key, *field));
      *field = value;
    }
  }
  return Status::ok();
}

Status read_bools(const JsonConfig& config,
                  std::initializer_list<std::pair<const char*, bool*>> fields) {
  for (auto [key, field] : fields) {
    NORMRT_ASSIGN_OR_RETURN(bool value, config.optional_bool(key, *field));
    *field = value;
  }
  return Status::ok();
}

Expected<std::string> weight_format(const JsonConfig& config, const std::string& weights_path) {
  const bool npz =
      weights_path.size() >= 4 && weights_path.substr(weights_path.size() - 4) == ".npz";
  return config.optional_string("weight_format", npz ? "theano" : "torch");
}

// The builder's own check, its message prefixed with the config file.
Status with_file(const JsonConfig& config, Status s) {
  return s ? s : Status::error(config.description() + ": " + s.message());
}

}  // namespace

Expected<AttentiveReaderConfig> read_attentive_reader_config(const JsonConfig& config,
                                                             const std::string& weights_path) {
  NORMRT_RETURN_IF_ERROR(check_keys(
      config,
      {"vocab_size", "word_size", "hidden_size", "answer_size", "num_answers", "question_length",
       "max_document_length", "use_dq_sims", "use_desc_skip_c_g", "learn_h0", "weight_format"},
      "docs/attentive_reader.md"));
  AttentiveReaderConfig c;
  NORMRT_RETURN_IF_ERROR(read_ints(config,
                                   {{"vocab_size", &c.vocab_size},
                                    {"word_size", &c.word_size},
                                    {"hidden_size", &c.hidden_size},
                                    {"answer_size", &c.answer_size},
                                    {"num_answers", &c.num_answers},
                                    {"question_length", &c.question_length}},
                                   true));
  NORMRT_RETURN_IF_ERROR(
      read_ints(config, {{"max_document_length", &c.max_document_length}}, false));
  NORMRT_RETURN_IF_ERROR(read_bools(config, {{"use_dq_sims", &c.use_dq_sims},
                                             {"use_desc_skip_c_g", &c.use_desc_skip_c_g},
                                             {"learn_h0", &c.learn_h0}}));
  NORMRT_ASSIGN_OR_RETURN(c.weight_format, weight_format(config, weights_path));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  NORMRT_RETURN_IF_ERROR(with_file(config, check_attentive_reader_config(c)));
  return c;
}

Expected<OrderEmbeddingConfig> read_order_embedding_config(const JsonConfig& config,
                                                           const std::string& weights_path) {
  NORMRT_RETURN_IF_ERROR(check_keys(config,
                                    {"vocab_size", "word_size", "dim", "image_size", "num_images",
                                     "abs", "max_sentence_length", "weight_format"},
                                    "docs/order_embeddings.md"));
  OrderEmbeddingConfig c;
  NORMRT_RETURN_IF_ERROR(read_ints(config,
                                   {{"vocab_size", &c.vocab_size},
                                    {"word_size", &c.word_size},
                                    {"dim", &c.dim},
                                    {"image_size", &c.image_size}},
                                   true));
  NORMRT_RETURN_IF_ERROR(read_ints(
      config, {{"num_images", &c.num_images}, {"max_sentence_length", &c.max_sentence_length}},
      false));
  NORMRT_RETURN_IF_ERROR(read_bools(config, {{"abs", &c.abs}}));
  NORMRT_ASSIGN_OR_RETURN(c.weight_format, weight_format(config, weights_path));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  NORMRT_RETURN_IF_ERROR(with_file(config, check_order_embedding_config(c)));
  return c;
}

Expected<HandwritingConfig> read_handwriting_config(const JsonConfig& config) {
  NORMRT_RETURN_IF_ERROR(check_keys(config,
                                    {"hidden_size", "num_layers", "components", "skip_connections",
                                     "graph", "max_sequence_length", "seed"},
                                    "docs/handwriting.md"));
  HandwritingConfig c;
  NORMRT_RETURN_IF_ERROR(read_ints(config,
                                   {{"hidden_size", &c.hidden_size},
                                    {"num_layers", &c.num_layers},
                                    {"components", &c.components},
                                    {"max_sequence_length", &c.max_sequence_length},
                                    {"seed", &c.seed}},
                                   false));
  NORMRT_RETURN_IF_ERROR(read_bools(config, {{"skip_connections", &c.skip_connections}}));
  NORMRT_ASSIGN_OR_RETURN(c.graph, config.optional_string("graph", c.graph));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  NORMRT_RETURN_IF_ERROR(with_file(config, check_handwriting_config(c)));
  return c;
}

Expected<Graph> build_seed_model_graph(const std::string& architecture, const JsonConfig& config,
                                       const WeightSource& weights, const ConvertOptions& options) {
  if (!options.norm.empty())
    return Status::error("--norm applies to BERT, Llama and Nematus checkpoints; the " +
                         architecture + " config sets its norm with the key 'norm'");
  if (options.pooling != "none")
    return Status::error("--pooling applies to BERT encoders only, not to " + architecture);
  if (options.dtype != DataType::kF32)
    return Status::error("--dtype bf16: " + architecture + " is converted with f32 weights only");
  const int64_t max_seq = options.max_sequence_length;
  if (architecture == "attentive_reader") {
    NORMRT_ASSIGN_OR_RETURN(AttentiveReaderConfig c,
                            read_attentive_reader_config(config, options.weights_path));
    if (max_seq > 0) c.max_document_length = max_seq;
    return build_attentive_reader(c, weights);
  }
  if (architecture == "order_embeddings") {
    NORMRT_ASSIGN_OR_RETURN(OrderEmbeddingConfig c,
                            read_order_embedding_config(config, options.weights_path));
    if (max_seq > 0) c.max_sentence_length = max_seq;
    return build_order_embeddings(c, weights);
  }
  NORMRT_ASSIGN_OR_RETURN(HandwritingConfig c, read_handwriting_config(config));
  if (max_seq > 0) c.max_sequence_length = max_seq;
  return build_handwriting_model(c, weights);
}

}  // namespace normrt
