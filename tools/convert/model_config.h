#pragma once
// Which architecture a config file describes, and its mapping onto the
// builders' config structs. Two kinds of config are understood:
//   - a Hugging Face config.json ("model_type": "bert", or "architectures"
//     naming a Bert* class) → BertConfig (HF's defaults for absent keys);
//   - normrt's RNN/MLP config (docs/models_rnn.md), recognised by its
//     "architecture" key ("lstm" | "gru" | "mlp", also spelled "ln_lstm",
//     "ln_gru", "ln_mlp") → RnnConfig / MlpConfig. Its keys are checked
//     against the documented list, so a misspelt key is an error rather than
//     a silent default.
// Every error names the config file and the key.
#include <string>

#include "kernels/common/status.h"
#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_config.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/llama_decoder.h"
#include "tools/convert/readers/json_config.h"

namespace normrt {

enum class ModelFamily { kBertEncoder, kLstm, kGru, kMlp, kLlamaDecoder };
/// "bert_encoder", "lstm", "gru", "mlp", "llama_decoder".
const char* model_family_name(ModelFamily family);

/// The family of `config`; an error for an unknown or unsupported one
/// ("mistral", "qwen2": "not supported yet").
Expected<ModelFamily> detect_model_family(const JsonConfig& config);

Expected<BertConfig> read_bert_config(const JsonConfig& config);
/// "model_type": "llama": hidden_act must be "silu", no rope_scaling (nor a
/// rope_parameters.rope_type other than "default"), no attention/MLP biases.
Expected<LlamaConfig> read_llama_config(const JsonConfig& config);
Expected<RnnConfig> read_rnn_config(const JsonConfig& config, bool is_lstm);
Expected<MlpConfig> read_mlp_config(const JsonConfig& config);

}  // namespace normrt
