#pragma once
// Llama-family decoder-only Transformers (Llama, TinyLlama, SmolLM, ...) from
// a Hugging Face LlamaForCausalLM checkpoint: config.json fields + tensors.
//
// The graph (docs/llama_decoder.md), for S new tokens after `position`
// tokens already in the KV caches:
//   input_ids i32 [S]
//   h = embed_tokens[ids]
//   per layer:  h = h + Wo · Attention(rope(Wq·n), rope(Wk·n), Wv·n)   n = norm(h)
//               h = h + Wdown · (silu(Wgate·n) ⊙ Wup·n)              n = norm(h)
//   output "logits" [S, vocab] = lm_head · norm(h)   (pre-norm, causal)
// Every layer owns two state tensors "model.layers.N.self_attn.{k,v}_cache"
// [C, kv_heads·head_dim] (C = max sequence length) that the Attention node
// fills in place, so the session position advances by S per run: the prompt
// in one run, then one token per run decodes incrementally; Session::reset()
// clears the caches.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The fields of a Hugging Face LlamaConfig (config.json) the graph needs.
struct LlamaConfig {
  int64_t vocab_size = 32000;
  int64_t hidden_size = 4096;
  int64_t intermediate_size = 11008;
  int64_t num_hidden_layers = 32;
  int64_t num_attention_heads = 32;
  int64_t num_key_value_heads = 32;  ///< grouped-query attention: divides the heads
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  int64_t max_position_embeddings = 2048;
  bool tie_word_embeddings = false;  ///< lm_head is embed_tokens (no lm_head.weight)
};

struct LlamaBuildOptions {
  /// "rms_norm" (the checkpoint's own), or "layer_norm" / "prms_norm" to run
  /// the same gains with another norm (an experiment: LayerNorm with bias 0,
  /// pRMSNorm over the first ⌊p·n⌋ elements; the result is not Llama's).
  std::string norm = "rms_norm";
  double p = 0.0;  ///< prms_norm only, in (0, 1]
  /// The KV cache capacity C: the largest position + S a session reaches;
  /// 0: max_position_embeddings.
  int64_t max_sequence_length = 0;
};

/// Builds the decoder graph. Every tensor the architecture needs is checked
/// (name, shape, float dtype, byte size) and every problem — missing,
/// mis-shaped, wrong dtype, unknown — is listed in one error. `matrix_dtype`
/// (kF32 or kBF16) stores the matrices (projections, embedding table,
/// lm_head); the norm gains stay f32.
Expected<Graph> build_llama_decoder(const LlamaConfig& config, const WeightSource& weights,
                                    DataType matrix_dtype, const LlamaBuildOptions& options = {});

/// A Hugging Face config.json with "model_type": "llama" → LlamaConfig:
/// hidden_act must be "silu", no rope_scaling (nor a rope_parameters.rope_type
/// other than "default"), no attention/MLP biases. Errors name the file and key.
Expected<LlamaConfig> read_llama_config(const JsonConfig& config);

/// An error naming the field if a config value is out of range (sizes ≥ 1 and
/// bounded, hidden_size divisible by num_attention_heads with an even head
/// size, num_key_value_heads dividing num_attention_heads, eps finite ≥ 0,
/// rope_theta finite > 0).
Status check_llama_config(const LlamaConfig& config);

}  // namespace normrt
