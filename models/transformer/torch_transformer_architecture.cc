// The registry entry of encoder-decoders made of PyTorch's nn.Transformer
// (torch_transformer.h): normrt's JSON config ("architecture":
// "torch_transformer", docs/torch_transformer.md) with the constructor's
// arguments by their PyTorch names, normrt's norm keys, and the graph's
// build options.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "models/architecture_support.h"
#include "models/config_checks.h"
#include "models/config_json.h"
#include "models/registry.h"
#include "models/transformer/torch_transformer.h"

namespace normrt {
namespace {

const std::set<std::string>& torch_transformer_keys() {
  static const std::set<std::string> keys = {"architecture",
                                             "src_vocab_size",
                                             "tgt_vocab_size",
                                             "d_model",
                                             "nhead",
                                             "num_encoder_layers",
                                             "num_decoder_layers",
                                             "dim_feedforward",
                                             "activation",
                                             "norm_first",
                                             "encoder_final_norm",
                                             "decoder_final_norm",
                                             "max_positions",
                                             "norm",
                                             "eps",
                                             "eps_placement",
                                             "gain_convention",
                                             "p",
                                             "source_length",
                                             "max_target_length",
                                             "kv_cache"};
  return keys;
}

}  // namespace

Expected<TorchTransformerJson> read_torch_transformer_config(const JsonConfig& config) {
  NORMRT_RETURN_IF_ERROR(
      check_known_keys(config, torch_transformer_keys(),
                       "docs/torch_transformer.md lists the keys of the torch_transformer config"));
  TorchTransformerJson json;
  TorchTransformerConfig& c = json.config;
  TorchTransformerBuildOptions& b = json.build;
  for (auto [key, field, required] :
       {std::tuple<const char*, int64_t*, bool>{"src_vocab_size", &c.src_vocab_size, true},
        {"tgt_vocab_size", &c.tgt_vocab_size, true},
        {"d_model", &c.d_model, false},
        {"nhead", &c.nhead, false},
        {"num_encoder_layers", &c.num_encoder_layers, false},
        {"num_decoder_layers", &c.num_decoder_layers, false},
        {"dim_feedforward", &c.dim_feedforward, false},
        {"max_positions", &c.max_positions, false},
        {"source_length", &b.source_length, true},
        {"max_target_length", &b.max_target_length, false}}) {
    NORMRT_ASSIGN_OR_RETURN(int64_t value,
                            required ? config.require_int(key) : config.optional_int(key, *field));
    *field = value;
  }
  for (auto [key, field] : {std::pair<const char*, bool*>{"norm_first", &c.norm_first},
                            {"encoder_final_norm", &c.encoder_final_norm},
                            {"decoder_final_norm", &c.decoder_final_norm},
                            {"kv_cache", &b.kv_cache}}) {
    NORMRT_ASSIGN_OR_RETURN(bool value, config.optional_bool(key, *field));
    *field = value;
  }
  NORMRT_ASSIGN_OR_RETURN(std::string activation,
                          config.optional_string("activation", c.activation));
  c.activation = activation;
  // Without norm keys: nn.LayerNorm with eps 1e-5, as nn.Transformer.
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  if (Status s = check_torch_transformer_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  if (Status s = check_partial_width(c.norm, c.d_model, "d_model", "key 'p' ="); !s)
    return Status::error(config.description() + ": " + s.message());
  return json;
}

namespace {

Expected<TorchTransformerJson> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_norm_and_pooling(options, "torch_transformer"));
  NORMRT_ASSIGN_OR_RETURN(TorchTransformerJson json, read_torch_transformer_config(config));
  if (options.max_sequence_length > 0) json.build.max_target_length = options.max_sequence_length;
  return json;
}

Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan(config, options).status();
}

Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(TorchTransformerJson json, plan(config, options));
  NORMRT_ASSIGN_OR_RETURN(Graph graph,
                          build_torch_transformer(json.config, weights, options.dtype, json.build));
  return one_graph(std::move(graph));
}

}  // namespace

const Architecture& torch_transformer_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "torch_transformer";
    a.match.architecture = {"torch_transformer"};
    a.read_config = read;
    a.build = build;
    a.decode = {"tgt_ids", "logits"};
    return a;
  }();
  return entry;
}

}  // namespace normrt
