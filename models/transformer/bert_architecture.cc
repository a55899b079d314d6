// The registry entry of BERT-family encoders (bert_encoder.h): Hugging Face
// config.json with "model_type": "bert", or without model_type an
// "architectures" list naming a Bert* class; its reader; the options.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "models/config_json.h"
#include "models/registry.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/encoder_plan.h"

namespace normrt {

Expected<BertConfig> read_bert_config(const JsonConfig& config) {
  BertConfig c;
  const std::pair<const char*, int64_t*> required[] = {
      {"vocab_size", &c.vocab_size},
      {"hidden_size", &c.hidden_size},
      {"num_hidden_layers", &c.num_hidden_layers},
      {"num_attention_heads", &c.num_attention_heads},
      {"intermediate_size", &c.intermediate_size}};
  for (auto [key, field] : required)
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, true));
  NORMRT_RETURN_IF_ERROR(
      read_int_field(config, "max_position_embeddings", &c.max_position_embeddings, false));
  NORMRT_RETURN_IF_ERROR(read_int_field(config, "type_vocab_size", &c.type_vocab_size, false));
  Expected<std::string> act = config.optional_string("hidden_act", c.hidden_act);
  Expected<double> eps = config.optional_double("layer_norm_eps", c.layer_norm_eps);
  Expected<std::string> position = config.optional_string("position_embedding_type", "absolute");
  for (const Status& s : {act.status(), eps.status(), position.status()})
    if (!s) return s;
  if (position.value() != "absolute")
    return Status::error(config.description() + ": key 'position_embedding_type', expected " +
                         "\"absolute\", found \"" + position.value() + "\" (not supported)");
  c.hidden_act = act.value();
  c.layer_norm_eps = eps.value();
  if (Status s = check_bert_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  return c;
}

namespace {

bool names_bert_class(const JsonConfig& config) {
  const std::vector<std::string> classes = architecture_classes(config);
  return std::any_of(classes.begin(), classes.end(),
                     [](const std::string& name) { return name.rfind("Bert", 0) == 0; });
}

// BERT's plan is the one every BERT-shaped family shares (encoder_plan.h);
// the graph keeps BertBuildOptions' architecture name "bert_encoder".
Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_bert_config(config));
  return plan_encoder(std::move(c), options, "BERT", "bert_encoder");
}

}  // namespace

const Architecture& bert_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "bert_encoder";
    a.match.model_type = {"bert"};
    a.match.claims = names_bert_class;
    a.match.claims_keys = "'architectures' naming a Bert* class (Hugging Face config.json)";
    a.read_config = read_encoder<plan>;
    a.build = build_encoder<plan>;
    return a;
  }();
  return entry;
}

}  // namespace normrt
