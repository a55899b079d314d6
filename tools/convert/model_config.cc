#include "tools/convert/model_config.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "kernels/norm/norm.h"

namespace normrt {
namespace {

// docs/models_rnn.md, "Config JSON": every key either family may carry.
const std::set<std::string>& normrt_config_keys() {
  static const std::set<std::string> keys = {
      "architecture", "input_size", "hidden_size",   "num_layers",         "hidden_sizes",
      "norm",         "eps",        "eps_placement", "gain_convention",    "p",
      "placement",    "vocab_size", "output_size",   "max_sequence_length"};
  return keys;
}

Status check_known_keys(const JsonConfig& config) {
  std::string unknown;
  for (const auto& item : config.root().items())
    if (!normrt_config_keys().count(item.key()))
      unknown += (unknown.empty() ? "'" : ", '") + item.key() + "'";
  if (unknown.empty()) return Status::ok();
  return Status::error(config.description() + ": unknown key(s) " + unknown +
                       " (docs/models_rnn.md lists the keys of normrt's RNN/MLP config)");
}

// Reads `key` into `*field` (required, or `*field` as the default).
Status read_int(const JsonConfig& config, const char* key, int64_t* field, bool required) {
  NORMRT_ASSIGN_OR_RETURN(int64_t value,
                          required ? config.require_int(key) : config.optional_int(key, *field));
  *field = value;
  return Status::ok();
}

}  // namespace

Expected<NormConfig> read_norm_config(const JsonConfig& config) {
  NormConfig norm;
  Expected<std::string> kind = config.optional_string("norm", norm.kind);
  Expected<double> eps = config.optional_double("eps", norm.eps);
  Expected<std::string> placement = config.optional_string("eps_placement", norm.eps_placement);
  Expected<std::string> gain = config.optional_string("gain_convention", norm.gain_convention);
  for (const Status& s : {kind.status(), eps.status(), placement.status(), gain.status()})
    if (!s) return s;
  norm.kind = kind.value();
  norm.eps = eps.value();
  norm.eps_placement = placement.value();
  norm.gain_convention = gain.value();
  if (norm.kind == "prms_norm") {
    NORMRT_ASSIGN_OR_RETURN(double p, config.require_double("p"));
    norm.p = p;
  } else if (config.has("p")) {  // ignored, it would hide a misspelt or wrong "norm"
    return Status::error(config.description() + ": key 'p' applies to norm \"prms_norm\" only, " +
                         "found with norm \"" + norm.kind + "\"");
  }
  if (Status s = check_norm_config(norm); !s)
    return Status::error(config.description() + ": " + s.message());
  return norm;
}

Status check_partial_width(const NormConfig& norm, int64_t width, const std::string& what) {
  if (norm.kind != "prms_norm" || width <= 0) return Status::ok();
  NormParams params;
  params.kind = NormKind::kRmsNormPartial;
  params.partial_fraction = norm.p;
  const size_t n = static_cast<size_t>(width);
  if (norm_stat_count(params, n) >= 1) return Status::ok();
  char text[200];
  std::snprintf(text, sizeof text,
                " %g leaves pRMSNorm no element to average over %s = %zu (floor(p·%zu) = 0): "
                "p must be at least 1/%zu = %.6g",
                norm.p, what.c_str(), n, n, n, 1.0 / static_cast<double>(n));
  return Status::error(text);
}

namespace {

bool contains_bert_class(const JsonConfig& config) {
  const nlohmann::json& list = config.root().value("architectures", nlohmann::json());
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [](const nlohmann::json& name) {
    return name.is_string() && name.get<std::string>().rfind("Bert", 0) == 0;
  });
}

}  // namespace

const char* model_family_name(ModelFamily family) {
  switch (family) {
    case ModelFamily::kBertEncoder:
      return "bert_encoder";
    case ModelFamily::kLstm:
      return "lstm";
    case ModelFamily::kGru:
      return "gru";
    case ModelFamily::kMlp:
      return "mlp";
    case ModelFamily::kLlamaDecoder:
      return "llama_decoder";
    case ModelFamily::kRnnSearch:
      return "rnnsearch";
    case ModelFamily::kTorchTransformer:
      return "torch_transformer";
    case ModelFamily::kConvPoolCnn:
      return "convpool_cnn_c";
    case ModelFamily::kAttentiveReader:
      return "attentive_reader";
    case ModelFamily::kOrderEmbeddings:
      return "order_embeddings";
    case ModelFamily::kHandwriting:
      return "handwriting";
  }
  return "invalid";
}

Expected<ModelFamily> detect_model_family(const JsonConfig& config) {
  const std::string& file = config.description();
  if (config.has("architecture")) {
    NORMRT_ASSIGN_OR_RETURN(const std::string a, config.require_string("architecture"));
    if (a == "lstm" || a == "ln_lstm") return ModelFamily::kLstm;
    if (a == "gru" || a == "ln_gru") return ModelFamily::kGru;
    if (a == "mlp" || a == "ln_mlp") return ModelFamily::kMlp;
    if (a == "torch_transformer") return ModelFamily::kTorchTransformer;
    if (a == "convpool_cnn_c") return ModelFamily::kConvPoolCnn;
    if (a == "attentive_reader") return ModelFamily::kAttentiveReader;
    if (a == "order_embeddings") return ModelFamily::kOrderEmbeddings;
    if (a == "handwriting") return ModelFamily::kHandwriting;
    return Status::error(file + ": unknown architecture '" + a +
                         "', expected one of lstm, gru, mlp (or ln_lstm, ln_gru, ln_mlp), "
                         "torch_transformer, convpool_cnn_c, attentive_reader, "
                         "order_embeddings, handwriting");
  }
  if (config.has("model_type")) {
    NORMRT_ASSIGN_OR_RETURN(const std::string t, config.require_string("model_type"));
    if (t == "bert") return ModelFamily::kBertEncoder;
    if (t == "llama") return ModelFamily::kLlamaDecoder;
    if (t == "rnn" || t == "transformer")
      return Status::error(file + ": model_type '" + t +
                           "' looks like a TensorFlow Nematus config; of Nematus only the Theano "
                           "RNNSearch (model.npz.json with \"decoder\": \"gru_cond\") converts");
    if (t == "mistral" || t == "qwen2")
      return Status::error(file + ": model_type '" + t +
                           "' is not supported yet: of the decoders only 'llama' converts");
    return Status::error(file + ": unknown model_type '" + t +
                         "', expected 'bert' (Hugging Face BERT-family encoders) or 'llama'");
  }
  if (contains_bert_class(config)) return ModelFamily::kBertEncoder;
  // A Theano Nematus model.npz.json has neither key (docs/rnnsearch.md).
  const nlohmann::json& decoder = config.root().value("decoder", nlohmann::json());
  if (decoder == "gru_cond" || (config.has("dim_word") && config.has("n_words_src")))
    return ModelFamily::kRnnSearch;
  return Status::error(file +
                       ": cannot tell the architecture: missing key 'architecture' (normrt's "
                       "RNN/MLP config), 'model_type' (Hugging Face config.json) and "
                       "'dim_word' with 'n_words_src' (Nematus model.npz.json)");
}

Expected<BertConfig> read_bert_config(const JsonConfig& config) {
  BertConfig c;
  const std::pair<const char*, int64_t*> required[] = {
      {"vocab_size", &c.vocab_size},
      {"hidden_size", &c.hidden_size},
      {"num_hidden_layers", &c.num_hidden_layers},
      {"num_attention_heads", &c.num_attention_heads},
      {"intermediate_size", &c.intermediate_size}};
  for (auto [key, field] : required) NORMRT_RETURN_IF_ERROR(read_int(config, key, field, true));
  NORMRT_RETURN_IF_ERROR(
      read_int(config, "max_position_embeddings", &c.max_position_embeddings, false));
  NORMRT_RETURN_IF_ERROR(read_int(config, "type_vocab_size", &c.type_vocab_size, false));
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

Expected<LlamaConfig> read_llama_config(const JsonConfig& config) {
  const std::string& file = config.description();
  LlamaConfig c;
  const std::pair<const char*, int64_t*> required[] = {
      {"vocab_size", &c.vocab_size},
      {"hidden_size", &c.hidden_size},
      {"intermediate_size", &c.intermediate_size},
      {"num_hidden_layers", &c.num_hidden_layers},
      {"num_attention_heads", &c.num_attention_heads}};
  for (auto [key, field] : required) NORMRT_RETURN_IF_ERROR(read_int(config, key, field, true));
  c.num_key_value_heads = c.num_attention_heads;  // HF's default: plain multi-head
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"num_key_value_heads",
                                                             &c.num_key_value_heads},
                            {"max_position_embeddings", &c.max_position_embeddings}})
    NORMRT_RETURN_IF_ERROR(read_int(config, key, field, false));
  Expected<double> eps = config.optional_double("rms_norm_eps", c.rms_norm_eps);
  Expected<bool> tie = config.optional_bool("tie_word_embeddings", c.tie_word_embeddings);
  Expected<std::string> act = config.optional_string("hidden_act", "silu");
  Expected<bool> attention_bias = config.optional_bool("attention_bias", false);
  Expected<bool> mlp_bias = config.optional_bool("mlp_bias", false);
  for (const Status& s : {eps.status(), tie.status(), act.status(), attention_bias.status(),
                          mlp_bias.status()})
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
    const nlohmann::json type = rope.is_object() ? rope.value("rope_type", nlohmann::json("default"))
                                                 : nlohmann::json();
    if (!rope.is_object() || type != "default")
      return Status::error(file + ": key 'rope_parameters', expected rope_type \"default\", found " +
                           rope.dump() + " (scaled rotary positions are not supported)");
    if (rope.contains("rope_theta")) {
      if (!rope["rope_theta"].is_number())
        return Status::error(file + ": key 'rope_parameters.rope_theta', expected a number, found " +
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

Expected<RnnConfig> read_rnn_config(const JsonConfig& config, bool is_lstm) {
  NORMRT_RETURN_IF_ERROR(check_known_keys(config));
  RnnConfig c;
  for (auto [key, field, required] :
       {std::tuple<const char*, int64_t*, bool>{"input_size", &c.input_size, true},
        {"hidden_size", &c.hidden_size, true},
        {"num_layers", &c.num_layers, false},
        {"vocab_size", &c.vocab_size, false},
        {"output_size", &c.output_size, false},
        {"max_sequence_length", &c.max_sequence_length, false}})
    NORMRT_RETURN_IF_ERROR(read_int(config, key, field, required));
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  NORMRT_ASSIGN_OR_RETURN(std::string placement, config.optional_string("placement", c.placement));
  c.placement = placement;
  if (Status s = check_rnn_config(c, is_lstm); !s)
    return Status::error(config.description() + ": " + s.message());
  // Every cell normalizes a vector of H (the cell state, or W·x_t of a GRU).
  if (Status s = check_partial_width(c.norm, c.hidden_size, "hidden_size"); !s)
    return Status::error(config.description() + ": key 'p' =" + s.message());
  return c;
}

Expected<MlpConfig> read_mlp_config(const JsonConfig& config) {
  NORMRT_RETURN_IF_ERROR(check_known_keys(config));
  MlpConfig c;
  for (auto [key, field, required] :
       {std::tuple<const char*, int64_t*, bool>{"input_size", &c.input_size, true},
        {"output_size", &c.output_size, true},
        {"max_sequence_length", &c.max_sequence_length, false}})
    NORMRT_RETURN_IF_ERROR(read_int(config, key, field, required));
  if (config.has("hidden_sizes")) {
    const nlohmann::json& sizes = config.root()["hidden_sizes"];
    if (!sizes.is_array())
      return Status::error(config.description() +
                           ": key 'hidden_sizes', expected a list of integers, found " +
                           sizes.type_name());
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!sizes[i].is_number_integer())
        return Status::error(config.description() + ": key 'hidden_sizes'[" + std::to_string(i) +
                             "], expected an integer, found " + sizes[i].dump());
      if (c.hidden_sizes.size() > 64)
        return Status::error(config.description() +
                             ": key 'hidden_sizes' has more than 64 entries");
      c.hidden_sizes.push_back(sizes[i].get<int64_t>());
    }
  }
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  if (Status s = check_mlp_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  for (size_t i = 0; i < c.hidden_sizes.size(); ++i) {
    const std::string what = "hidden_sizes[" + std::to_string(i) + "]";
    if (Status s = check_partial_width(c.norm, c.hidden_sizes[i], what); !s)
      return Status::error(config.description() + ": key 'p' =" + s.message());
  }
  return c;
}

}  // namespace normrt
