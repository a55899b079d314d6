#pragma once
/// The MLP with normalized hidden layers (the LayerNorm paper's
/// permutation-invariant MNIST setting): x → [Linear → norm → ReLU] × L →
/// Linear → logits. Tensor names: docs/models_rnn.md.
///
/// The graph: input "x" f32 [S, D] (S rows are independent examples, S ≤
/// max_sequence_length), output "logits" [S, O]. Each hidden layer is a
/// Linear, a LayerNorm / RmsNorm / PRmsNorm node (none for norm "none") and
/// a ReLU, which the fusion pass turns into one FusedLinear.
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/builder_support.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct MlpConfig {
  int64_t input_size = 0;             ///< D
  std::vector<int64_t> hidden_sizes;  ///< one entry per hidden layer (may be empty)
  int64_t output_size = 0;            ///< O, the logits
  NormConfig norm;                    ///< of every hidden layer; kind "none": no norm
  int64_t max_sequence_length = 256;  ///< rows per run
};

/// An error naming the field if a size is outside [1, 2^20], there are more
/// than 64 hidden layers, or the norm convention is unknown.
Status check_mlp_config(const MlpConfig& config);

/// Every problem with the weights is reported in one error (as the RNN
/// builders); matrices in matrix_dtype (kF32 | kBF16), vectors f32.
Expected<Graph> build_ln_mlp(const MlpConfig& config, const WeightSource& weights,
                             DataType matrix_dtype);

/// normrt's MLP config ("architecture": "mlp", docs/models_rnn.md) →
/// MlpConfig: keys checked against the RNN/MLP list; errors name the file and key.
Expected<MlpConfig> read_mlp_config(const JsonConfig& config);

}  // namespace normrt
