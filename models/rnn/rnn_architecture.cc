// The registry entries of normrt's RNN families, LSTM and GRU
// (rnn_builders.h): normrt's config with "architecture": "lstm" | "ln_lstm"
// | "gru" | "ln_gru" (docs/models_rnn.md); its reader; the options.
#include <tuple>
#include <utility>

#include "models/architecture_support.h"
#include "models/config_checks.h"
#include "models/config_json.h"
#include "models/registry.h"
#include "models/rnn/rnn_builders.h"
#include "models/rnn/rnn_config.h"

namespace normrt {

const std::set<std::string>& rnn_mlp_config_keys() {
  static const std::set<std::string> keys = {
      "architecture", "input_size", "hidden_size",   "num_layers",         "hidden_sizes",
      "norm",         "eps",        "eps_placement", "gain_convention",    "p",
      "placement",    "vocab_size", "output_size",   "max_sequence_length"};
  return keys;
}

Expected<RnnConfig> read_rnn_config(const JsonConfig& config, bool is_lstm) {
  NORMRT_RETURN_IF_ERROR(check_known_keys(config, rnn_mlp_config_keys(), kRnnMlpKeysDocumented));
  RnnConfig c;
  for (auto [key, field, required] :
       {std::tuple<const char*, int64_t*, bool>{"input_size", &c.input_size, true},
        {"hidden_size", &c.hidden_size, true},
        {"num_layers", &c.num_layers, false},
        {"vocab_size", &c.vocab_size, false},
        {"output_size", &c.output_size, false},
        {"max_sequence_length", &c.max_sequence_length, false}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, required));
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, read_norm_config(config));
  c.norm = norm;
  NORMRT_ASSIGN_OR_RETURN(std::string placement, config.optional_string("placement", c.placement));
  c.placement = placement;
  if (Status s = check_rnn_config(c, is_lstm); !s)
    return Status::error(config.description() + ": " + s.message());
  // Every cell normalizes a vector of H (the cell state, or W·x_t of a GRU).
  if (Status s = check_partial_width(c.norm, c.hidden_size, "hidden_size", "key 'p' ="); !s)
    return Status::error(config.description() + ": " + s.message());
  return c;
}

namespace {

template <bool kLstm>
Expected<RnnConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  const char* name = kLstm ? "lstm" : "gru";
  NORMRT_RETURN_IF_ERROR(refuse_norm_and_pooling(options, name));
  NORMRT_ASSIGN_OR_RETURN(RnnConfig c, read_rnn_config(config, kLstm));
  if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
  return c;
}

template <bool kLstm>
Status read(const JsonConfig& config, const ModelBuildOptions& options) {
  return plan<kLstm>(config, options).status();
}

template <bool kLstm>
Expected<BuiltModel> build(const JsonConfig& config, const WeightSource& weights,
                           const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(RnnConfig c, plan<kLstm>(config, options));
  NORMRT_ASSIGN_OR_RETURN(Graph graph, kLstm ? build_ln_lstm(c, weights, options.dtype)
                                             : build_ln_gru(c, weights, options.dtype));
  return one_graph(std::move(graph));
}

// With an embedding and a head (vocab_size, output_size), an RNN is a
// language model: "ids" in, "logits" out, which the decoder can generate from.
template <bool kLstm>
Architecture rnn_entry() {
  Architecture a;
  a.name = kLstm ? "lstm" : "gru";
  a.match.architecture = {kLstm ? "lstm" : "gru", kLstm ? "ln_lstm" : "ln_gru"};
  a.read_config = read<kLstm>;
  a.build = build<kLstm>;
  a.decode = {"ids", "logits"};
  return a;
}

}  // namespace

const Architecture& lstm_architecture() {
  static const Architecture entry = rnn_entry<true>();
  return entry;
}

const Architecture& gru_architecture() {
  static const Architecture entry = rnn_entry<false>();
  return entry;
}

}  // namespace normrt
