#pragma once
// The parts of an RNN graph that the LSTM and GRU builders share: the input
// (features x, or token ids through an embedding), the optional Linear head,
// the metadata, and the tensor names of a normalization module.
#include <string>
#include <vector>

#include "models/builder_support.h"
#include "models/rnn/rnn_config.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {

/// The graph input: "x" f32 [S, D], or with vocab_size > 0 "ids" i32 [S]
/// looked up in embedding.weight [V, D]. Returns the [S, D] rows.
TensorId add_rnn_input(GraphBuilder& builder, WeightChecker& weights, const RnnConfig& config,
                       DataType matrix_dtype);

/// Names the last layer's h_seq "h_seq" and makes it an output; with
/// output_size > 0 adds head.weight [O, H], head.bias [O] and the output
/// "logits" [S, O].
void add_rnn_outputs(GraphBuilder& builder, WeightChecker& weights, const RnnConfig& config,
                     TensorId h_seq, DataType matrix_dtype);

/// architecture, norm, eps, eps_placement, gain_convention, p, layers, ...
void add_rnn_metadata(GraphBuilder& builder, const RnnConfig& config,
                      const std::string& architecture);

/// A normalization module's gain and bias names under `prefix`: nn.LayerNorm's
/// "weight", "bias"; the RMSNorm module's (rmsnorm_torch.py) "scale", "offset".
std::string norm_gain_name(const NormConfig& norm, const std::string& prefix);
std::string norm_bias_name(const NormConfig& norm, const std::string& prefix);

/// The row blocks of `rows` rows each of `matrix` (row length `cols`) in the
/// order `order` (output block j = input block order[j]); empty stays empty.
std::vector<float> permute_row_blocks(const std::vector<float>& matrix, size_t rows, size_t cols,
                                      const std::vector<size_t>& order);

/// a + b element-wise; empty if either is empty.
std::vector<float> add_vectors(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace normrt
