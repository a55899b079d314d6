// build_ln_gru: one GruCellBa node per layer (docs/ops_sequence.md).
//
// nn.GRUCell computes, with gate blocks r, z, n in weight_ih / weight_hh:
//   r = σ(W_ir x + b_ir + W_hr h + b_hr),  z' = σ(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),  h' = (1 − z')⊙n + z'⊙h
// The op's plain GRU (eqs. 23-25 with the β's as biases) is
//   ĥ = tanh(W x + β3 + σ(r) ⊙ (U h + β4)),  h' = (1 − σ(z))⊙h + σ(z)⊙ĥ
// so β4 = b_hn sits inside r ⊙ (...) exactly as PyTorch has it, and
// σ(z) = 1 − z' = σ(−(W_iz x + W_hz h + b_iz + b_hz)): negating the z rows
// and biases reproduces nn.GRUCell exactly (no approximation).
#include <string>
#include <vector>

#include "models/builder_support.h"
#include "models/rnn/rnn_builders.h"
#include "models/rnn/rnn_graph.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// Rows [first, first + count) of a row-major matrix with `cols` columns.
std::vector<float> rows_of(const std::vector<float>& m, size_t cols, size_t first, size_t count) {
  if (m.empty()) return {};
  return std::vector<float>(m.begin() + first * cols, m.begin() + (first + count) * cols);
}

// nn.GRUCell's r, z rows → the op's [−z; r].
std::vector<float> negated_z_then_r(const std::vector<float>& m, size_t h, size_t cols) {
  if (m.empty()) return {};
  std::vector<float> out = rows_of(m, cols, h, h);  // z
  for (float& v : out) v = -v;
  std::vector<float> r = rows_of(m, cols, 0, h);
  out.insert(out.end(), r.begin(), r.end());
  return out;
}

// The GruCellBa operands 2-13 (w_x, w_h, w, u, gain_h, bias_h, gain_x, bias_x,
// gain_w, bias_w, gain_u, bias_u) of layer `l` reading `in` features.
std::vector<TensorId> add_layer_weights(GraphBuilder& b, WeightChecker& weights,
                                        const RnnConfig& config, int64_t l, int64_t in,
                                        DataType dtype) {
  const std::string p = "layers." + std::to_string(l) + ".";
  const int64_t h = config.hidden_size;
  const size_t hs = static_cast<size_t>(h), ins = static_cast<size_t>(in);
  const NormConfig& norm = config.norm;
  std::vector<TensorId> ids(12, kNoTensor);
  if (!norm.enabled) {  // nn.GRUCell
    const auto w_ih = weights.read(p + "weight_ih", {3 * h, in});
    const auto w_hh = weights.read(p + "weight_hh", {3 * h, h});
    const auto b_ih = weights.read(p + "bias_ih", {3 * h});
    const auto b_hh = weights.read(p + "bias_hh", {3 * h});
    ids[0] = add_weight(b, p + "w_x", {2 * h, in}, negated_z_then_r(w_ih, hs, ins), dtype);
    ids[1] = add_weight(b, p + "w_h", {2 * h, h}, negated_z_then_r(w_hh, hs, hs), dtype);
    ids[2] = add_weight(b, p + "w", {h, in}, rows_of(w_ih, ins, 2 * hs, hs), dtype);
    ids[3] = add_weight(b, p + "u", {h, h}, rows_of(w_hh, hs, 2 * hs, hs), dtype);
    const auto gates = negated_z_then_r(
        add_vectors(rows_of(b_ih, 1, 0, 2 * hs), rows_of(b_hh, 1, 0, 2 * hs)), hs, 1);
    ids[7] = add_weight(b, p + "bias_x", {2 * h}, gates, dtype);
    ids[9] = add_weight(b, p + "bias_w", {h}, rows_of(b_ih, 1, 2 * hs, hs), dtype);
    ids[11] = add_weight(b, p + "bias_u", {h}, rows_of(b_hh, 1, 2 * hs, hs), dtype);
    return ids;
  }
  auto matrix = [&](size_t slot, const std::string& name, Shape shape) {
    ids[slot] = add_weight(b, p + name, shape, weights.read(p + name, shape), dtype);
  };
  matrix(0, "w_x.weight", {2 * h, in});
  matrix(1, "w_h.weight", {2 * h, h});
  matrix(2, "w.weight", {h, in});
  matrix(3, "u.weight", {h, h});
  // Slots 4.. are (gain, bias) of norm_h, norm_x (2H) and norm_w, norm_u (H).
  const std::vector<std::pair<std::string, int64_t>> norms = {
      {"norm_h", 2 * h}, {"norm_x", 2 * h}, {"norm_w", h}, {"norm_u", h}};
  for (size_t i = 0; i < norms.size(); ++i) {
    const std::string gain = norm_gain_name(norm, p + norms[i].first);
    const std::string bias = norm_bias_name(norm, p + norms[i].first);
    const int64_t n = norms[i].second;
    ids[4 + 2 * i] = add_weight(b, gain, {n}, weights.read(gain, {n}), dtype);
    ids[5 + 2 * i] = add_weight(b, bias, {n}, weights.read(bias, {n}), dtype);
  }
  return ids;
}

}  // namespace

Expected<Graph> build_ln_gru(const RnnConfig& config, const WeightSource& source,
                             DataType matrix_dtype) {
  NORMRT_RETURN_IF_ERROR(check_rnn_config(config, /*is_lstm=*/false));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  GraphBuilder b;
  WeightChecker weights(source);
  const int64_t h = config.hidden_size;
  std::vector<Attribute> attributes = norm_attributes(config.norm);
  attributes.push_back(norm_selection_attribute(config.norm));
  TensorId x = add_rnn_input(b, weights, config, matrix_dtype);
  for (int64_t l = 0; l < config.num_layers; ++l) {
    const std::string name = "layers." + std::to_string(l);
    const int64_t in = l == 0 ? config.input_size : h;
    const TensorId h_state = b.state(name + ".h", DataType::kF32, {1, h});
    std::vector<TensorId> inputs = {x, h_state};
    for (TensorId id : add_layer_weights(b, weights, config, l, in, matrix_dtype))
      inputs.push_back(id);
    x = b.node(OpType::kGruCellBa, name, inputs, {{kSequenceDim, h}, {1, h}}, attributes);
    b.state_update(h_state, b.last_outputs()[1]);
  }
  add_rnn_outputs(b, weights, config, x, matrix_dtype);
  add_rnn_metadata(b, config, "gru");
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(config.max_sequence_length);
}

}  // namespace normrt
