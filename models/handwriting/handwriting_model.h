#pragma once
/// Handwriting sequence generation (Graves 2013, section 4: the prediction
/// network; the LayerNorm paper's section 6.5 trains it with LN-LSTMs):
/// stacked LN-LSTMs over pen offsets (x1, x2, end of stroke) with skip
/// connections (every layer also reads the input, the output reads every
/// layer; Graves eqs. 1–3), a linear layer to ŷ [1 + 6M], and the mixture
/// density output of eqs. 18–22 (MixtureDensity; docs/handwriting.md).
///
///   layer l:  h^l = LN-LSTM([x, h^{l−1}])   (l = 0: x alone; without skip
///             connections: h^{l−1} alone)  — LayerNorm paper eqs. 20–22
///   ŷ = W_y [h^0, …, h^{L−1}] + b_y        (without skip: W_y h^{L−1} + b_y)
///
/// Two graphs from the same weights ("graph" in the config):
///   "predict": input "x" f32 [S, 3] (teacher forcing), output "params"
///              [S, 1 + 6M] (MixtureDensity's layout, bias 0); the LSTM state
///              carries over runs (Session::reset() zeroes it).
///   "sample":  one point per run: input "bias" f32 [1] (Graves' sampling
///              bias b ≥ 0); the previous point (state "pen", zero at the
///              start), the LSTM state and the step counter (state "step")
///              are fed back; outputs "point" [1, 3] (drawn by MixtureSample
///              with the config's seed) and "params" [1, 1 + 6M].
///
/// Weights: a PyTorch state_dict (safetensors) of the LN-LSTM module of
/// docs/models_rnn.md per layer — layers.<l>.w_x.weight [4H, in_l],
/// layers.<l>.w_h.weight [4H, H], layers.<l>.bias [4H], layers.<l>.norm_x /
/// norm_h / norm_c (nn.LayerNorm weight, bias; RMSNorm scale, offset; none
/// for norm "none"), gate blocks f, i, o, g — and head.weight [1 + 6M,
/// L·H or H], head.bias [1 + 6M].
#include <cstdint>
#include <string>

#include "base/status.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct HandwritingConfig {
  int64_t hidden_size = 400;  ///< H per layer (Graves: 400)
  int64_t num_layers = 3;     ///< L (Graves: 3)
  int64_t components = 20;    ///< M bivariate Gaussians (Graves: 20)
  bool skip_connections = true;
  NormConfig norm;               ///< layer_norm (the LayerNorm paper), rms_norm, prms_norm, none
  std::string graph = "sample";  ///< "predict" | "sample"
  int64_t max_sequence_length = 1024;  ///< "predict": S at most
  int64_t seed = 0;                    ///< "sample": MixtureSample's seed (its 64 bits)
};

/// An error naming the field: sizes outside their ranges, an unknown graph,
/// a bad norm convention (⌊p·H⌋ ≥ 1 for prms_norm).
Status check_handwriting_config(const HandwritingConfig& config);

Expected<Graph> build_handwriting_model(const HandwritingConfig& config,
                                        const WeightSource& weights);

}  // namespace normrt
