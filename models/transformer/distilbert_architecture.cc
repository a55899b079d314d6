// The registry entries of DistilBERT: encoders (Hugging Face config.json with
// "model_type": "distilbert", or "architectures" naming DistilBertModel) and
// sequence classifiers ("architectures" naming
// DistilBertForSequenceClassification: sequence_classifier.h's
// distilbert_head on the first token).
// DistilBERT is BERT's post-norm encoder without token types and with its
// own names (q_lin, sa_layer_norm, ffn.lin1, ...): the graph is BERT's
// (bert_encoder.h) reading the tensors through distilbert_name().
#include <string>
#include <utility>

#include "models/config_json.h"
#include "models/transformer/encoder_plan.h"

namespace normrt {
namespace {

// BERT's module names → DistilBERT's ("encoder.layer.3.attention.self.query.weight"
// → "transformer.layer.3.attention.q_lin.weight"); embeddings keep theirs.
std::string distilbert_name(const std::string& bert_name) {
  static const std::pair<const char*, const char*> kParts[] = {
      {"attention.self.query", "attention.q_lin"},
      {"attention.self.key", "attention.k_lin"},
      {"attention.self.value", "attention.v_lin"},
      {"attention.output.dense", "attention.out_lin"},
      {"attention.output.LayerNorm", "sa_layer_norm"},
      {"intermediate.dense", "ffn.lin1"},
      {"output.dense", "ffn.lin2"},
      {"output.LayerNorm", "output_layer_norm"}};
  const std::string layer = "encoder.layer.";
  if (bert_name.rfind(layer, 0) != 0) return bert_name;
  const size_t dot = bert_name.find('.', layer.size());
  const std::string index = bert_name.substr(layer.size(), dot - layer.size());
  const std::string rest = bert_name.substr(dot + 1);  // "attention.self.query.weight"
  for (const auto& [from, to] : kParts) {
    const std::string f = std::string(from) + ".";
    if (rest.rfind(f, 0) == 0)
      return "transformer.layer." + index + "." + to + "." + rest.substr(f.size());
  }
  return "transformer.layer." + index + "." + rest;
}

// config.json of a DistilBertModel → BertConfig (no token types; HF's
// DistilBERT LayerNorms use eps 1e-12, which its config does not carry).
Expected<BertConfig> read_distilbert_config(const JsonConfig& config) {
  BertConfig c;
  c.token_types = false;
  c.vocab_size = 30522;
  c.hidden_size = 768;
  c.num_hidden_layers = 6;
  c.num_attention_heads = 12;
  c.intermediate_size = 3072;
  const std::pair<const char*, int64_t*> fields[] = {
      {"vocab_size", &c.vocab_size},
      {"dim", &c.hidden_size},
      {"n_layers", &c.num_hidden_layers},
      {"n_heads", &c.num_attention_heads},
      {"hidden_dim", &c.intermediate_size},
      {"max_position_embeddings", &c.max_position_embeddings}};
  for (auto [key, field] : fields)
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, false));
  NORMRT_ASSIGN_OR_RETURN(c.hidden_act, config.optional_string("activation", "gelu"));
  if (Status s = check_bert_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  return c;
}

bool names_distilbert_class(const JsonConfig& config) {
  return names_class(config, {"DistilBertModel"});
}

bool names_distilbert_classifier(const JsonConfig& config) {
  return names_class(config, {"DistilBertForSequenceClassification"});
}

template <bool kClassifier>
Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_distilbert_config(config));
  const char* name = kClassifier ? "distilbert_sequence_classifier" : "distilbert_encoder";
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p, plan_encoder(std::move(c), options, "DistilBERT", name));
  p.build.names.prefix = "distilbert.";
  p.build.names.rename = distilbert_name;
  if constexpr (kClassifier) {
    p.build.classifier.kind = "distilbert_head";
    NORMRT_ASSIGN_OR_RETURN(p.build.classifier.num_labels, read_num_labels(config));
    if (Status s = check_sequence_classifier(p.build.classifier, p.build.pooling); !s)
      return Status::error(config.description() + ": " + s.message());
  }
  return p;
}

}  // namespace

const Architecture& distilbert_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "distilbert_encoder";
    a.match.model_type = {"distilbert"};
    a.match.claims = names_distilbert_class;
    a.match.claims_keys = "'architectures' naming DistilBertModel";
    a.read_config = read_encoder<plan<false>>;
    a.build = build_encoder<plan<false>>;
    return a;
  }();
  return entry;
}

const Architecture& distilbert_sequence_classifier_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "distilbert_sequence_classifier";
    a.match.model_type = {"distilbert"};
    a.match.model_type_requires = names_distilbert_classifier;
    a.match.claims = names_distilbert_classifier;
    a.match.claims_keys = "'architectures' naming DistilBertForSequenceClassification";
    a.read_config = read_encoder<plan<true>>;
    a.build = build_encoder<plan<true>>;
    return a;
  }();
  return entry;
}

}  // namespace normrt
