// normrt's JSON config for encoder-decoders made of PyTorch's nn.Transformer
// (docs/torch_transformer.md): the constructor's arguments by their PyTorch
// names, normrt's norm keys, and the graph's build options.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "tools/convert/model_config.h"

namespace normrt {
namespace {

const std::set<std::string>& torch_transformer_keys() {
  static const std::set<std::string> keys = {
      "architecture",       "src_vocab_size",     "tgt_vocab_size",     "d_model",
      "nhead",              "num_encoder_layers", "num_decoder_layers", "dim_feedforward",
      "activation",         "norm_first",         "encoder_final_norm", "decoder_final_norm",
      "max_positions",      "norm",               "eps",                "eps_placement",
      "gain_convention",    "p",                  "source_length",      "max_target_length",
      "kv_cache"};
  return keys;
}

Status check_keys(const JsonConfig& config) {
  std::string unknown;
  for (const auto& item : config.root().items())
    if (!torch_transformer_keys().count(item.key()))
      unknown += (unknown.empty() ? "'" : ", '") + item.key() + "'";
  if (unknown.empty()) return Status::ok();
  return Status::error(config.description() + ": unknown key(s) " + unknown +
                       " (docs/torch_transformer.md lists the keys of the torch_transformer config)");
}

}  // namespace

Expected<TorchTransformerJson> read_torch_transformer_config(const JsonConfig& config) {
  if (Status s = check_keys(config); !s) return s;
  TorchTransformerJson json;
  TorchTransformerConfig& c = json.config;
  TorchTransformerBuildOptions& b = json.build;
  for (auto [key, field, required] : {
           std::tuple<const char*, int64_t*, bool>{"src_vocab_size", &c.src_vocab_size, true},
           {"tgt_vocab_size", &c.tgt_vocab_size, true},
           {"d_model", &c.d_model, false},
           {"nhead", &c.nhead, false},
           {"num_encoder_layers", &c.num_encoder_layers, false},
           {"num_decoder_layers", &c.num_decoder_layers, false},
           {"dim_feedforward", &c.dim_feedforward, false},
           {"max_positions", &c.max_positions, false},
           {"source_length", &b.source_length, true},
           {"max_target_length", &b.max_target_length, false}}) {
    Expected<int64_t> value = required ? config.require_int(key) : config.optional_int(key, *field);
    if (!value) return value.status();
    *field = value.value();
  }
  for (auto [key, field] : {std::pair<const char*, bool*>{"norm_first", &c.norm_first},
                            {"encoder_final_norm", &c.encoder_final_norm},
                            {"decoder_final_norm", &c.decoder_final_norm},
                            {"kv_cache", &b.kv_cache}}) {
    Expected<bool> value = config.optional_bool(key, *field);
    if (!value) return value.status();
    *field = value.value();
  }
  Expected<std::string> activation = config.optional_string("activation", c.activation);
  if (!activation) return activation.status();
  c.activation = activation.value();
  // Without norm keys: nn.LayerNorm with eps 1e-5, as nn.Transformer.
  Expected<NormConfig> norm = read_norm_config(config);
  if (!norm) return norm.status();
  c.norm = norm.value();
  if (Status s = check_torch_transformer_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  if (Status s = check_partial_width(c.norm, c.d_model, "d_model"); !s)
    return Status::error(config.description() + ": key 'p' =" + s.message());
  return json;
}

}  // namespace normrt
