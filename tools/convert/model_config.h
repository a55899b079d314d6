#pragma once
// Which architecture a config file describes, and its mapping onto the
// builders' config structs. Two kinds of config are understood:
//   - a Hugging Face config.json ("model_type": "bert", or "architectures"
//     naming a Bert* class) → BertConfig (HF's defaults for absent keys);
//   - normrt's RNN/MLP config (docs/models_rnn.md), recognised by its
//     "architecture" key ("lstm" | "gru" | "mlp", also spelled "ln_lstm",
//     "ln_gru", "ln_mlp") → RnnConfig / MlpConfig. Its keys are checked
//     against the documented list, so a misspelt key is an error rather than
//     a silent default;
//   - a Nematus (Theano) model.npz.json, recognised by "decoder": "gru_cond"
//     or, without "architecture" and "model_type", by "dim_word" and
//     "n_words_src" → RnnSearchConfig (docs/rnnsearch.md, "Config").
// Every error names the config file and the key.
#include <string>

#include "base/status.h"
#include "models/cnn/convpool_cnn_c.h"
#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_config.h"
#include "models/rnnsearch/rnnsearch_builder.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/llama_decoder.h"
#include "models/transformer/torch_transformer.h"
#include "tools/convert/readers/json_config.h"

namespace normrt {

enum class ModelFamily { kBertEncoder, kLstm, kGru, kMlp, kLlamaDecoder, kRnnSearch,
                         kTorchTransformer, kConvPoolCnn, kAttentiveReader, kOrderEmbeddings,
                         kHandwriting };
/// "bert_encoder", "lstm", "gru", "mlp", "llama_decoder", "rnnsearch",
/// "torch_transformer", "convpool_cnn_c", "attentive_reader", "order_embeddings",
/// "handwriting".
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
/// A Nematus config: dim_word, dim, n_words_src, n_words (required),
/// layer_normalisation and the two tie_* flags; the keys that select another
/// architecture (encoder, decoder, enc_depth, dec_depth, the recurrence
/// transition depths, factors, weight_normalisation, ...) must keep the
/// values of the supported one, and the error names the key otherwise;
/// training keys are ignored. `norm` ("" or layer_norm | rms_norm |
/// prms_norm, normrt-convert's --norm) says which norm a checkpoint with
/// layer_normalisation was trained with (default layer_norm); `p` for prms_norm.
/// The keys norm, eps, eps_placement, gain_convention and p (docs/models_rnn.md);
/// "p" with a norm other than prms_norm is an error.
Expected<NormConfig> read_norm_config(const JsonConfig& config);

/// For prms_norm: an error unless floor(p·width) ≥ 1 (the kernel's rule,
/// norm_stat_count()) for the smallest width the model normalizes, named
/// `what` ("hidden_size"). The message continues the caller's "key 'p' ="
/// or "--p": " 0.1 leaves pRMSNorm no element ... p must be at least 1/7 ...".
Status check_partial_width(const NormConfig& norm, int64_t width, const std::string& what);

/// normrt's JSON for nn.Transformer encoder-decoders ("architecture":
/// "torch_transformer", docs/torch_transformer.md): TorchTransformerConfig's
/// fields and the build options source_length, max_target_length, kv_cache.
struct TorchTransformerJson {
  TorchTransformerConfig config;
  TorchTransformerBuildOptions build;
};
Expected<TorchTransformerJson> read_torch_transformer_config(const JsonConfig& config);

/// normrt's JSON for ConvPool-CNN-C ("architecture": "convpool_cnn_c",
/// docs/cnn.md): its keys checked against the documented list; 'norm'
/// required; eps 1e-6 by default (the authors' RMSNormLayer).
Expected<ConvPoolCnnConfig> read_convpool_cnn_config(const JsonConfig& config);

Expected<RnnSearchConfig> read_rnnsearch_config(const JsonConfig& config, const std::string& norm,
                                                double p);

}  // namespace normrt
