// The registry entry of Llama-style decoders (llama_decoder.h): Hugging
// Face config.json with "model_type": "llama"; its reader; the options.
#include <nlohmann/json.hpp>
#include <utility>

#include "models/architecture_support.h"
#include "models/config_json.h"
#include "models/registry.h"
#include "models/transformer/llama_decoder.h"

namespace normrt {

Expected<LlamaConfig> read_llama_config(const JsonConfig& config) {
  const std::string& file = config.description();
  LlamaConfig c;
  const std::pair<const char*, int64_t*> required[] = {
      {"vocab_size", &c.vocab_size},
      {"hidden_size", &c.hidden_size},
      {"intermediate_size", &c.intermediate_size},
      {"num_hidden_layers", &c.num_hidden_layers},
      {"num_attention_heads", &c.num_attention_heads}};
  for (auto [key, field] : required)
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, true));
  c.num_key_value_heads = c.num_attention_heads;  // HF's default: plain multi-head
  for (auto [key, field] :
       {std::pair<const char*, int64_t*>{"num_key_value_heads", &c.num_key_value_heads},
        {"max_position_embeddings", &c.max_position_embeddings}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, false));
  Expected<double> eps = config.optional_double("rms_norm_eps", c.rms_norm_eps);
  Expected<bool> tie = config.optional_bool("tie_word_embeddings", c.tie_word_embeddings);
  Expected<std::string> act = config.optional_string("hidden_act", "silu");
  Expected<bool> attention_bias = config.optional_bool("attention_bias", false);
  Expected<bool> mlp_bias = config.optional_bool("mlp_bias", false);
  for (const Status& s :
       {eps.status(), tie.status(), act.status(), attention_bias.status(), mlp_bias.status()})
    if (!s) return s;
  c.rms_norm_eps = eps.value();
  c.tie_word_embeddings = tie.value();
  if (act.value() != "silu")
    return Status::error(file + ": key 'hidden_act', expected \"silu\", found \"" + act.value() +
                         "\"");
  if (attention_bias.value() || mlp_bias.value())
    return Status::error(file + ": key '" +
                         (attention_bias.value() ? "attention_bias" : "mlp_bias") +
                         "', expected false, found true (biases are not supported)");
  // rope_theta: top-level (transformers < 5) or in rope_parameters (>= 5).
  const nlohmann::json& root = config.root();
  const nlohmann::json none;
  const nlohmann::json& scaling = root.contains("rope_scaling") ? root["rope_scaling"] : none;
  if (!scaling.is_null())
    return Status::error(file + ": key 'rope_scaling', expected null, found " + scaling.dump() +
                         " (scaled rotary positions are not supported)");
  NORMRT_ASSIGN_OR_RETURN(double theta, config.optional_double("rope_theta", c.rope_theta));
  c.rope_theta = theta;
  if (root.contains("rope_parameters") && !root["rope_parameters"].is_null()) {
    const nlohmann::json& rope = root["rope_parameters"];
    const nlohmann::json type =
        rope.is_object() ? rope.value("rope_type", nlohmann::json("default")) : nlohmann::json();
    if (!rope.is_object() || type != "default")
      return Status::error(file +
                           ": key 'rope_parameters', expected rope_type \"default\", found " +
                           rope.dump() + " (scaled rotary positions are not supported)");
    if (rope.contains("rope_theta")) {
      if (!rope["rope_theta"].is_number())
        return Status::error(file +
                             ": key 'rope_parameters.rope_theta', expected a number, found " +
                             rope["rope_theta"].dump());
      c.rope_theta = rope["rope_theta"].get<double>();
    }
  }
  if (root.contains("head_dim") && !root["head_dim"].is_null() &&
      !(root["head_dim"].is_number_integer() && c.num_attention_heads > 0 &&
        c.hidden_size % c.num_attention_heads == 0 &&  // compared by division: no overflow
        root["head_dim"].get<int64_t>() == c.hidden_size / c.num_attention_heads))
    return Status::error(file + ": key 'head_dim', expected hidden_size / num_attention_heads, " +
                         "found " + root["head_dim"].dump());
  if (Status s = check_llama_config(c); !s) return Status::error(file + ": " + s.message());
  return c;
}

namespace {

struct LlamaPlan {
  LlamaConfig config;
  LlamaBuildOptions build;
};

Expected<LlamaPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  LlamaPlan plan;
  NORMRT_ASSIGN_OR_RETURN(plan.config, read_llama_config(config));
  NORMRT_ASSIGN_OR_RETURN(plan.build.norm, transformer_norm(options, "rms_norm", "Llama"));
  plan.build.p = options.p;
  NORMRT_RETURN_IF_ERROR(check_p_option(plan.build.norm, options.p, plan.config.hidden_size));
  NORMRT_RETURN_IF_ERROR(refuse_pooling(options, "llama_decoder"));
  plan.build.max_sequence_length = options.max_sequence_length;
  return plan;
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(LlamaPlan p, plan(config, options));
  NORMRT_ASSIGN_OR_RETURN(Graph graph,
                          build_llama_decoder(p.config, weights, options.dtype, p.build));
  return one_graph(std::move(graph), "rms_norm");
}

}  // namespace

const Architecture& llama_decoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "llama_decoder";
    a.match.model_type = {"llama"};
    for (const char* relative : {"mistral", "qwen2"})
      a.match.refused_model_type.push_back(
          {relative, "is not supported yet: of the decoders only 'llama' converts"});
    a.read_config = read;
    a.build = build;
    a.decode = {"input_ids", "logits"};
    return a;
  }();
  return entry;
}

}  // namespace normrt
