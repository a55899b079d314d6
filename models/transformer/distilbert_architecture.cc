// The registry entry of DistilBERT encoders: Hugging Face config.json with
// "model_type": "distilbert" (or "architectures" naming DistilBertModel).
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

Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_distilbert_config(config));
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p,
                          plan_encoder(std::move(c), options, "DistilBERT", "distilbert_encoder"));
  p.build.names.prefix = "distilbert.";
  p.build.names.rename = distilbert_name;
  return p;
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p, plan(config, options));
  return build_encoder_plan(p, weights, options);
}

}  // namespace

const Architecture& distilbert_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "distilbert_encoder";
    a.match.model_type = {"distilbert"};
    a.match.claims = names_distilbert_class;
    a.match.claims_keys = "'architectures' naming DistilBertModel";
    a.read_config = read;
    a.build = build;
    return a;
  }();
  return entry;
}

}  // namespace normrt
