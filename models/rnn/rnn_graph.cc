#include "models/rnn/rnn_graph.h"

namespace normrt {

TensorId add_rnn_input(GraphBuilder& builder, WeightChecker& weights, const RnnConfig& config,
                       DataType matrix_dtype) {
  const int64_t d = config.input_size;
  if (config.vocab_size == 0) return builder.input("x", DataType::kF32, {kSequenceDim, d});
  const TensorId ids = builder.input("ids", DataType::kI32, {kSequenceDim});
  const Shape table_shape = {config.vocab_size, d};
  const TensorId table = add_weight(builder, "embedding.weight", table_shape,
                                    weights.read("embedding.weight", table_shape), matrix_dtype);
  return builder.node(OpType::kEmbedding, "embedding", {ids, table}, {{kSequenceDim, d}});
}

void add_rnn_outputs(GraphBuilder& builder, WeightChecker& weights, const RnnConfig& config,
                     TensorId h_seq, DataType matrix_dtype) {
  builder.rename(h_seq, "h_seq");
  builder.output(h_seq);
  if (config.output_size == 0) return;
  const int64_t o = config.output_size, h = config.hidden_size;
  const TensorId w =
      add_weight(builder, "head.weight", {o, h}, weights.read("head.weight", {o, h}), matrix_dtype);
  const TensorId b =
      add_weight(builder, "head.bias", {o}, weights.read("head.bias", {o}), matrix_dtype);
  const TensorId logits = builder.node(OpType::kLinear, "head", {h_seq, w, b}, {{kSequenceDim, o}});
  builder.rename(logits, "logits");
  builder.output(logits);
}

void add_rnn_metadata(GraphBuilder& builder, const RnnConfig& config,
                      const std::string& architecture) {
  builder.metadata("architecture", architecture);
  builder.metadata("norm", std::string(norm_name(config.norm)));
  builder.metadata("eps", config.norm.eps);
  builder.metadata("eps_placement", std::string(eps_placement_name(config.norm.eps_placement)));
  builder.metadata("gain_convention",
                   std::string(gain_convention_name(config.norm.gain_convention)));
  if (config.norm.is(NormKind::kPRmsNorm)) builder.metadata("p", config.norm.p);
  if (architecture == "lstm" && config.norm.enabled)
    builder.metadata("placement", config.placement);
  builder.metadata("num_layers", config.num_layers);
  builder.metadata("hidden_size", config.hidden_size);
}

std::string norm_gain_name(const NormConfig& norm, const std::string& prefix) {
  return prefix + (norm.is(NormKind::kLayerNorm) ? ".weight" : ".scale");
}

std::string norm_bias_name(const NormConfig& norm, const std::string& prefix) {
  return prefix + (norm.is(NormKind::kLayerNorm) ? ".bias" : ".offset");
}

std::vector<float> permute_row_blocks(const std::vector<float>& matrix, size_t rows, size_t cols,
                                      const std::vector<size_t>& order) {
  if (matrix.empty()) return {};
  const size_t block = rows * cols;
  std::vector<float> out(matrix.size());
  for (size_t j = 0; j < order.size(); ++j) {
    std::copy(matrix.begin() + order[j] * block, matrix.begin() + (order[j] + 1) * block,
              out.begin() + j * block);
  }
  return out;
}

std::vector<float> add_vectors(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.empty() || b.empty()) return {};
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

}  // namespace normrt
