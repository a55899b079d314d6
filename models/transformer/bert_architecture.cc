// The registry entry of BERT-family encoders (bert_encoder.h): Hugging Face
// config.json with "model_type": "bert", or without model_type an
// "architectures" list naming a Bert* class; its reader; the options.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "models/architecture_support.h"
#include "models/config_json.h"
#include "models/registry.h"
#include "models/transformer/bert_encoder.h"

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
  const nlohmann::json& list = config.root().value("architectures", nlohmann::json());
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [](const nlohmann::json& name) {
    return name.is_string() && name.get<std::string>().rfind("Bert", 0) == 0;
  });
}

struct BertPlan {
  BertConfig config;
  BertBuildOptions build;
};

Expected<BertPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  BertPlan plan;
  NORMRT_ASSIGN_OR_RETURN(plan.config, read_bert_config(config));
  NORMRT_ASSIGN_OR_RETURN(plan.build.norm, transformer_norm(options, "layer_norm", "BERT"));
  NORMRT_RETURN_IF_ERROR(check_p_option(plan.build.norm, options.p, plan.config.hidden_size));
  plan.build.p = options.p;
  NORMRT_RETURN_IF_ERROR(check_pooling(options.pooling));
  plan.build.pooling = options.pooling;
  plan.build.max_sequence_length = options.max_sequence_length;
  return plan;
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertPlan p, plan(config, options));
  NORMRT_ASSIGN_OR_RETURN(Graph graph,
                          build_bert_encoder(p.config, weights, options.dtype, p.build));
  return one_graph(std::move(graph), "layer_norm");
}

}  // namespace

const Architecture& bert_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "bert_encoder";
    a.match.model_type = {"bert"};
    a.match.claims = names_bert_class;
    a.match.claims_keys = "'architectures' naming a Bert* class (Hugging Face config.json)";
    a.read_config = read;
    a.build = build;
    return a;
  }();
  return entry;
}

}  // namespace normrt
