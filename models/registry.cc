#include "models/registry.h"

#include <algorithm>

namespace normrt {

// Each entry is defined beside its builder (models/<family>/*_architecture.cc).
const Architecture& bert_encoder_architecture();
const Architecture& lstm_architecture();
const Architecture& gru_architecture();
const Architecture& mlp_architecture();
const Architecture& llama_decoder_architecture();
const Architecture& rnnsearch_architecture();
const Architecture& torch_transformer_architecture();
const Architecture& convpool_cnn_c_architecture();
const Architecture& bert_sequence_classifier_architecture();
const Architecture& roberta_sequence_classifier_architecture();
const Architecture& distilbert_sequence_classifier_architecture();
const Architecture& roberta_encoder_architecture();
const Architecture& distilbert_encoder_architecture();
const Architecture& mpnet_encoder_architecture();
const Architecture& attentive_reader_architecture();
const Architecture& order_embeddings_architecture();
const Architecture& handwriting_architecture();

const std::vector<const Architecture*>& architectures() {
  static const std::vector<const Architecture*> all = {
      // The sequence classifiers before their families' encoders (model_type_requires).
      &bert_sequence_classifier_architecture(),
      &roberta_sequence_classifier_architecture(),
      &distilbert_sequence_classifier_architecture(),
      &bert_encoder_architecture(),
      &roberta_encoder_architecture(),
      &distilbert_encoder_architecture(),
      &mpnet_encoder_architecture(),
      &lstm_architecture(),
      &gru_architecture(),
      &mlp_architecture(),
      &llama_decoder_architecture(),
      &rnnsearch_architecture(),
      &torch_transformer_architecture(),
      &convpool_cnn_c_architecture(),
      &attentive_reader_architecture(),
      &order_embeddings_architecture(),
      &handwriting_architecture(),
  };
  return all;
}

const Architecture* find_architecture(std::string_view name) {
  for (const Architecture* a : architectures())
    if (name == a->name) return a;
  return nullptr;
}

namespace {

bool contains(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// "lstm, gru, mlp, torch_transformer, convpool_cnn_c (or ln_lstm, ln_gru, ln_mlp)"
std::string known_architecture_values() {
  std::string names, aliases;
  for (const Architecture* a : architectures()) {
    const std::vector<std::string>& values = a->match.architecture;
    for (size_t i = 0; i < values.size(); ++i) {
      std::string& list = i == 0 ? names : aliases;
      list += (list.empty() ? "" : ", ") + values[i];
    }
  }
  return names + (aliases.empty() ? "" : " (or " + aliases + ")");
}

// "'bert' (bert_encoder) or 'llama' (llama_decoder)"
std::string known_model_types() {
  std::vector<std::string> entries;
  for (const Architecture* a : architectures())
    for (const std::string& type : a->match.model_type)
      if (a->match.model_type_requires == nullptr)  // a head's entry: listed by its family's
        entries.push_back("'" + type + "' (" + a->name + ")");
  std::string out;
  for (size_t i = 0; i < entries.size(); ++i)
    out += (i == 0 ? "" : i + 1 == entries.size() ? " or " : ", ") + entries[i];
  return out;
}

Expected<const Architecture*> by_architecture_key(const JsonConfig& config) {
  NORMRT_ASSIGN_OR_RETURN(const std::string value, config.require_string("architecture"));
  for (const Architecture* a : architectures())
    if (contains(a->match.architecture, value)) return a;
  return Status::error(config.description() + ": unknown architecture '" + value +
                       "', expected one of " + known_architecture_values());
}

Expected<const Architecture*> by_model_type(const JsonConfig& config) {
  NORMRT_ASSIGN_OR_RETURN(const std::string value, config.require_string("model_type"));
  for (const Architecture* a : architectures()) {
    if (contains(a->match.model_type, value) &&
        (a->match.model_type_requires == nullptr || a->match.model_type_requires(config)))
      return a;
    for (const auto& [type, reason] : a->match.refused_model_type)
      if (type == value)
        return Status::error(config.description() + ": model_type '" + value + "' " + reason);
  }
  return Status::error(config.description() + ": unknown model_type '" + value + "', expected " +
                       known_model_types());
}

}  // namespace

Expected<const Architecture*> detect_architecture(const JsonConfig& config) {
  if (config.has("architecture")) return by_architecture_key(config);
  if (config.has("model_type")) return by_model_type(config);
  std::string looked_for;
  for (const Architecture* a : architectures()) {
    if (a->match.claims == nullptr) continue;
    if (a->match.claims(config)) return a;
    looked_for += std::string(", ") + a->match.claims_keys;
  }
  return Status::error(config.description() +
                       ": cannot tell the architecture: missing key 'architecture' (normrt's "
                       "configs) and 'model_type' (Hugging Face config.json)" +
                       looked_for);
}

Expected<BuiltModel> build_model(const Architecture& architecture, const JsonConfig& config,
                                 const WeightSource& weights, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BuiltModel built, architecture.build(config, weights, options));
  const DecodeNames& decode = architecture.decode;
  if (decode.token_input == nullptr || decode.logits_output == nullptr) return built;
  for (BuiltGraph& part : built.graphs) {
    Graph& graph = part.graph;
    const auto named = [&](const std::vector<TensorId>& ids, const char* name) {
      return std::any_of(ids.begin(), ids.end(),
                         [&](TensorId id) { return graph.tensors[id].name == name; });
    };
    if (!named(graph.inputs, decode.token_input) || !named(graph.outputs, decode.logits_output))
      continue;
    graph.metadata.push_back({"decode_token_input", std::string(decode.token_input)});
    graph.metadata.push_back({"decode_logits_output", std::string(decode.logits_output)});
  }
  return built;
}

}  // namespace normrt
