#pragma once
// An encoder-decoder made of PyTorch's own modules (docs/torch_transformer.md):
//   src_embedding, tgt_embedding: nn.Embedding; pos_embedding: nn.Embedding
//   (learned positions, one table shared by source and target, added to the
//   token rows without scaling); transformer: nn.Transformer(batch_first=True)
//   with post-norm (norm_first=False) or pre-norm layers; generator: nn.Linear.
//
// The graph, for a source of fixed length L (a build option: the runtime has
// one symbolic length, and it is the target's) and T target tokens:
//   inputs  "src_ids" i32 [L], "tgt_ids" i32 [T]
//   memory = Encoder(src_emb[src] + pos[0:L])
//   h      = Decoder(tgt_emb[tgt] + pos[p:p+T], memory)   causal self-attention
//   output "logits" [T, tgt_vocab] = generator(h)
// Without a KV cache (the default) a run is teacher forcing over the whole
// target from position p = 0. With `kv_cache`, the decoder's self-attention
// keeps its keys and values in session state: feeding the target a token (or
// a chunk) per run continues at p = Session::position(), for incremental
// greedy decoding; the encoder is recomputed on every run unless the model is
// built as two parts (TorchTransformerPart): an encoder run once per source and
// a decoder step that takes the encoder's cross-attention keys and values.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The constructor arguments of the PyTorch model (nn.Transformer's names).
struct TorchTransformerConfig {
  int64_t src_vocab_size = 0;
  int64_t tgt_vocab_size = 0;
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t dim_feedforward = 2048;
  std::string activation = "relu";  ///< "relu" | "gelu" (erf), as nn.Transformer
  bool norm_first = false;          ///< false: post-norm, true: pre-norm
  /// transformer.encoder.norm / transformer.decoder.norm (nn.Transformer has both).
  bool encoder_final_norm = true;
  bool decoder_final_norm = true;
  int64_t max_positions = 512;  ///< rows of pos_embedding.weight
  /// Every norm of the model: "layer_norm" (nn.LayerNorm: weight and bias,
  /// eps 1e-5), or "rms_norm" / "prms_norm" modules with a weight only.
  NormConfig norm;
};

/// Which graph to build: the whole model, or the two halves of a decode
/// that runs the encoder once per source.
enum class TorchTransformerPart {
  kWhole,
  /// src_ids → per decoder layer N the cross-attention keys and values of the
  /// memory, outputs cross_attention_input_name(N, false / true) [L, E].
  kEncoder,
  /// tgt_ids and those keys and values (inputs of the same names) → logits;
  /// no source, no encoder: a decoding step costs the decoder only.
  kDecoder,
};

/// "transformer.decoder.layers.N.multihead_attn.keys" (or ".values").
std::string cross_attention_input_name(int64_t layer, bool values);

struct TorchTransformerBuildOptions {
  int64_t source_length = 0;      ///< L, required: 1 ≤ L ≤ max_positions
  int64_t max_target_length = 0;  ///< 0: max_positions; also the KV cache rows
  bool kv_cache = false;
  TorchTransformerPart part = TorchTransformerPart::kWhole;
};

/// Builds the graph. Every tensor is checked (name, shape, float dtype, byte
/// size) and every problem — missing, mis-shaped, wrong dtype, unknown — is
/// listed in one error. `matrix_dtype` (kF32 or kBF16) stores the matrices
/// (Linear weights, embedding tables); vectors stay f32. in_proj_weight
/// [3E, E] is split into the q, k, v Linear weights.
Expected<Graph> build_torch_transformer(const TorchTransformerConfig& config,
                                        const WeightSource& weights, DataType matrix_dtype,
                                        const TorchTransformerBuildOptions& options);

/// An error naming the field if a config value is out of range.
Status check_torch_transformer_config(const TorchTransformerConfig& config);

/// normrt's JSON for nn.Transformer encoder-decoders ("architecture":
/// "torch_transformer", docs/torch_transformer.md): TorchTransformerConfig's
/// fields and the build options source_length, max_target_length, kv_cache.
struct TorchTransformerJson {
  TorchTransformerConfig config;
  TorchTransformerBuildOptions build;
};
Expected<TorchTransformerJson> read_torch_transformer_config(const JsonConfig& config);

}  // namespace normrt
