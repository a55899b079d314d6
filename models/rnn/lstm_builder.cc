// build_ln_lstm: one LstmCell node per layer (docs/ops_sequence.md).
#include <string>
#include <vector>

#include "models/builder_support.h"
#include "models/rnn/rnn_builders.h"
#include "models/rnn/rnn_graph.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// nn.LSTMCell's gate blocks are i, f, g, o; the op's f, i, o, g.
const std::vector<size_t> kTorchToOpGates = {1, 0, 3, 2};

// The LstmCell operands 3-11 (w_x, w_h, b, gain_h, bias_h, gain_x, bias_x,
// gain_c, bias_c) of layer `l` reading `in` features.
std::vector<TensorId> add_layer_weights(GraphBuilder& b, WeightChecker& weights,
                                        const RnnConfig& config, int64_t l, int64_t in,
                                        DataType dtype) {
  const std::string p = "layers." + std::to_string(l) + ".";
  const int64_t h = config.hidden_size, g = 4 * h;
  const NormConfig& norm = config.norm;
  std::vector<TensorId> ids(9, kNoTensor);
  auto vector_weight = [&](size_t slot, const std::string& source_name, int64_t n) {
    ids[slot] = add_weight(b, source_name, {n}, weights.read(source_name, {n}), dtype);
  };
  if (!norm.enabled) {  // nn.LSTMCell
    const size_t hs = static_cast<size_t>(h);
    auto w_x = permute_row_blocks(weights.read(p + "weight_ih", {g, in}), hs, in, kTorchToOpGates);
    auto w_h = permute_row_blocks(weights.read(p + "weight_hh", {g, h}), hs, h, kTorchToOpGates);
    auto bias = add_vectors(weights.read(p + "bias_ih", {g}), weights.read(p + "bias_hh", {g}));
    ids[0] = add_weight(b, p + "w_x", {g, in}, w_x, dtype);
    ids[1] = add_weight(b, p + "w_h", {g, h}, w_h, dtype);
    ids[2] = add_weight(b, p + "b", {g}, permute_row_blocks(bias, hs, 1, kTorchToOpGates), dtype);
    return ids;
  }
  ids[0] = add_weight(b, p + "w_x.weight", {g, in}, weights.read(p + "w_x.weight", {g, in}), dtype);
  ids[1] = add_weight(b, p + "w_h.weight", {g, h}, weights.read(p + "w_h.weight", {g, h}), dtype);
  vector_weight(2, p + "bias", g);
  if (config.placement == "projections_and_cell") {
    vector_weight(3, norm_gain_name(norm, p + "norm_h"), g);
    vector_weight(4, norm_bias_name(norm, p + "norm_h"), g);
    vector_weight(5, norm_gain_name(norm, p + "norm_x"), g);
    vector_weight(6, norm_bias_name(norm, p + "norm_x"), g);
  }
  vector_weight(7, norm_gain_name(norm, p + "norm_c"), h);
  vector_weight(8, norm_bias_name(norm, p + "norm_c"), h);
  return ids;
}

std::vector<Attribute> cell_attributes(const RnnConfig& config) {
  std::vector<Attribute> attributes = norm_attributes(config.norm);
  attributes.push_back(norm_selection_attribute(config.norm));
  attributes.push_back(
      {"placement", !config.norm.enabled ? std::string("none") : config.placement});
  return attributes;
}

}  // namespace

Expected<Graph> build_ln_lstm(const RnnConfig& config, const WeightSource& source,
                              DataType matrix_dtype) {
  NORMRT_RETURN_IF_ERROR(check_rnn_config(config, /*is_lstm=*/true));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  GraphBuilder b;
  WeightChecker weights(source);
  const int64_t h = config.hidden_size;
  TensorId x = add_rnn_input(b, weights, config, matrix_dtype);
  for (int64_t l = 0; l < config.num_layers; ++l) {
    const std::string name = "layers." + std::to_string(l);
    const int64_t in = l == 0 ? config.input_size : h;
    const TensorId h_state = b.state(name + ".h", DataType::kF32, {1, h});
    const TensorId c_state = b.state(name + ".c", DataType::kF32, {1, h});
    std::vector<TensorId> inputs = {x, h_state, c_state};
    for (TensorId id : add_layer_weights(b, weights, config, l, in, matrix_dtype))
      inputs.push_back(id);
    x = b.node(OpType::kLstmCell, name, inputs, {{kSequenceDim, h}, {1, h}, {1, h}},
               cell_attributes(config));
    b.state_update(h_state, b.last_outputs()[1]);
    b.state_update(c_state, b.last_outputs()[2]);
  }
  add_rnn_outputs(b, weights, config, x, matrix_dtype);
  add_rnn_metadata(b, config, "lstm");
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(config.max_sequence_length);
}

}  // namespace normrt
