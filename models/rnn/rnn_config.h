#pragma once
// The config of normrt's RNN families (LSTM with LN/DRAW/none placement, GRU),
// the C++ side of the small JSON config documented in docs/models_rnn.md.
#include <cstdint>
#include <set>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"

namespace normrt {

struct RnnConfig {
  int64_t input_size = 0;   ///< D: features of x (or of an embedding row)
  int64_t hidden_size = 0;  ///< H
  int64_t num_layers = 1;   ///< stacked cells; layer l > 0 reads layer l − 1's h_seq
  /// norm.kind "none" is the plain cell (PyTorch's nn.LSTMCell / nn.GRUCell
  /// tensors); the others the layer-normalized cells of docs/models_rnn.md.
  NormConfig norm;
  /// LSTM only, for a normalized cell: "projections_and_cell" (LayerNorm
  /// paper eqs. 20-22) or "cell_only" (DRAW). Ignored for norm "none" and GRU.
  std::string placement = "projections_and_cell";
  int64_t vocab_size = 0;   ///< > 0: the input is token ids i32[S] through embedding.weight [V, D]
  int64_t output_size = 0;  ///< > 0: a Linear head head.weight [O, H], head.bias [O] → "logits"
  int64_t max_sequence_length = 256;  ///< S of one run is at most this
};

/// Limits that keep every tensor size computable and the ops' bounds met.
constexpr int64_t kMaxRnnSize = int64_t{1} << 20;
constexpr int64_t kMaxRnnLayers = 64;

/// An error naming the field if `config` is out of range (sizes ≥ 1 and
/// ≤ kMaxRnnSize, layers in [1, kMaxRnnLayers], vocab/output ≥ 0, a known
/// norm convention and placement).
Status check_rnn_config(const RnnConfig& config, bool is_lstm);

/// docs/models_rnn.md, "Config JSON": every key the RNN and MLP configs may
/// carry; a misspelt key is an error rather than a silent default.
const std::set<std::string>& rnn_mlp_config_keys();
inline constexpr const char* kRnnMlpKeysDocumented =
    "docs/models_rnn.md lists the keys of normrt's RNN/MLP config";

/// normrt's RNN config ("architecture": "lstm" | "gru", docs/models_rnn.md)
/// → RnnConfig: keys checked against the list, then check_rnn_config() and
/// pRMSNorm's width rule; every error names the file and the key.
Expected<RnnConfig> read_rnn_config(const JsonConfig& config, bool is_lstm);

}  // namespace normrt
