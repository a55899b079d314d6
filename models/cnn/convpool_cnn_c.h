#pragma once
/// ConvPool-CNN-C (Springenberg et al.'s "Striving for simplicity"
/// variant that the WeightNorm paper trains on CIFAR-10, and the RMSNorm
/// paper after it), as the WeightNorm authors' Lasagne code defines it
/// (openai/weightnorm, lasagne/train.py; docs/cnn.md):
///
///   x [B, 3, 32, 32]
///   conv 3×3 C1 pad 1 → norm → lrelu      ×3     "conv.0" .. "conv.2"
///   max-pool 2×2 stride 2                        (dropout: training only)
///   conv 3×3 C2 pad 1 → norm → lrelu      ×3     "conv.3" .. "conv.5"
///   max-pool 2×2 stride 2
///   conv 3×3 C2 valid → norm → lrelu              "conv.6"
///   conv 1×1 C2       → norm → lrelu      ×2     "conv.7", "conv.8" (Lasagne's NINLayer)
///   global average pool → [B, C2]
///   dense → classes → norm (no nonlinearity)     "dense"
///
/// C1 = 96, C2 = 192, lrelu(x) = max(x, 0.1·x). The norm is the authors'
/// normalizer around each layer: "none" (a per-channel bias, Lasagne's
/// no_norm), or a per-channel LayerNorm / RMSNorm / pRMSNorm over the
/// spatial axes (their RMSNormLayer: mean(x², axis=(2,3)), eps 1e-6 inside
/// the root, x̂·g + b, then the nonlinearity), with the layer's own bias
/// removed; the dense layer's 10 outputs are normalized the same way over
/// axis 1 ("normalize_dense"). Training-only layers (Gaussian noise,
/// dropout) are left out.
///
/// Weights, a PyTorch state_dict (safetensors): conv.<i>.weight [O, C, k, k]
/// (conv.<i>.bias [O] with norm "none"), norm.<i>.weight / norm.<i>.bias [O]
/// (gain g, bias b) with a norm; dense.weight [classes, C2], dense.bias
/// [classes] without a dense norm, else dense_norm.weight / dense_norm.bias.
///
/// The graph: input "x" f32 [B, in_channels, S, S], output "logits"
/// [B, classes]; unfused Conv2d → spatial norm → Activation nodes, which
/// the fusion pass turns into one Conv2d each.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct ConvPoolCnnConfig {
  int64_t in_channels = 3;
  int64_t image_size = 32;        ///< S: the input is S×S
  int64_t stage1_channels = 96;   ///< C1
  int64_t stage2_channels = 192;  ///< C2
  int64_t num_classes = 10;
  int64_t batch = 1;  ///< B, fixed in the graph
  NormConfig norm;    ///< "none" or a norm; eps 1e-6 as the authors' RMSNormLayer
  double negative_slope = 0.1;
  bool normalize_dense = true;  ///< with a norm: the logits are normalized too (the authors' code)
  /// "direct" or "winograd": the Conv2d nodes' attribute "algorithm" (docs/ops.md).
  std::string conv_algorithm = "winograd";

  ConvPoolCnnConfig() { norm.eps = 1e-6; }
};

/// An error naming the field: sizes outside [1, 4096] (batch [1, 1024]), an
/// image too small for the layers (S ≥ 12: two pools, then a valid 3×3), a
/// non-finite slope, or a bad norm convention (and for pRMSNorm, ⌊p·H·W⌋ = 0
/// on the last layers' planes).
Status check_convpool_cnn_config(const ConvPoolCnnConfig& config);

/// Every problem with the weights is reported in one error. Weights are f32
/// (convolutions run in f32 only).
Expected<Graph> build_convpool_cnn_c(const ConvPoolCnnConfig& config, const WeightSource& weights);

/// normrt's JSON for ConvPool-CNN-C ("architecture": "convpool_cnn_c",
/// docs/cnn.md): its keys checked against the documented list; 'norm'
/// required; eps 1e-6 by default (the authors' RMSNormLayer).
Expected<ConvPoolCnnConfig> read_convpool_cnn_config(const JsonConfig& config);

}  // namespace normrt
