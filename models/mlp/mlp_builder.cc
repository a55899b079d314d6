#include "models/mlp/mlp_builder.h"

#include <string>

#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

constexpr int64_t kMaxMlpSize = int64_t{1} << 20;

Status check_size(const std::string& field, int64_t value) {
  if (value >= 1 && value <= kMaxMlpSize) return Status::ok();
  return Status::error("config: " + field + " = " + std::to_string(value) + " is outside [1, " +
                       std::to_string(kMaxMlpSize) + "]");
}

// A Linear node reading `x` (K features) with `<prefix>.weight` [N, K] and
// `<prefix>.bias` [N].
TensorId add_linear(GraphBuilder& b, WeightChecker& weights, const std::string& prefix, TensorId x,
                    int64_t k, int64_t n, DataType dtype) {
  const std::string w = prefix + ".weight", bias = prefix + ".bias";
  const TensorId w_id = add_weight(b, w, {n, k}, weights.read(w, {n, k}), dtype);
  const TensorId b_id = add_weight(b, bias, {n}, weights.read(bias, {n}), dtype);
  return b.node(OpType::kLinear, prefix, {x, w_id, b_id}, {{kSequenceDim, n}});
}

}  // namespace

Status check_mlp_config(const MlpConfig& config) {
  NORMRT_RETURN_IF_ERROR(check_size("input_size", config.input_size));
  NORMRT_RETURN_IF_ERROR(check_size("output_size", config.output_size));
  if (config.hidden_sizes.size() > 64)
    return Status::error("config: " + std::to_string(config.hidden_sizes.size()) +
                         " hidden layers, at most 64");
  for (size_t l = 0; l < config.hidden_sizes.size(); ++l) {
    NORMRT_RETURN_IF_ERROR(
        check_size("hidden_sizes[" + std::to_string(l) + "]", config.hidden_sizes[l]));
  }
  if (config.max_sequence_length < 1 || config.max_sequence_length > (1 << 20))
    return Status::error("config: max_sequence_length = " +
                         std::to_string(config.max_sequence_length) + " is outside [1, 1048576]");
  return check_norm_config(config.norm);
}

Expected<Graph> build_ln_mlp(const MlpConfig& config, const WeightSource& source,
                             DataType matrix_dtype) {
  NORMRT_RETURN_IF_ERROR(check_mlp_config(config));
  NORMRT_RETURN_IF_ERROR(check_matrix_dtype(matrix_dtype));
  const NormConfig& norm = config.norm;
  GraphBuilder b;
  WeightChecker weights(source);
  TensorId x = b.input("x", DataType::kF32, {kSequenceDim, config.input_size});
  int64_t width = config.input_size;
  for (size_t l = 0; l < config.hidden_sizes.size(); ++l) {
    const std::string p = "hidden." + std::to_string(l);
    const int64_t n = config.hidden_sizes[l];
    x = add_linear(b, weights, p + ".linear", x, width, n, matrix_dtype);
    if (norm.enabled) {
      const bool layer_norm = norm.is(NormKind::kLayerNorm);
      const std::string gain = p + (layer_norm ? ".norm.weight" : ".norm.scale");
      const std::string bias = p + (layer_norm ? ".norm.bias" : ".norm.offset");
      const TensorId g = add_weight(b, gain, {n}, weights.read(gain, {n}), matrix_dtype);
      const TensorId beta = add_weight(b, bias, {n}, weights.read(bias, {n}), matrix_dtype);
      x = b.node(norm_op_type(norm.kind), p + ".norm", {x, g, beta}, {{kSequenceDim, n}},
                 norm_attributes(norm));
    }
    x = b.node(OpType::kActivation, p + ".relu", {x}, {{kSequenceDim, n}},
               {{"activation", std::string("relu")}});
    width = n;
  }
  const TensorId logits = add_linear(b, weights, "out", x, width, config.output_size, matrix_dtype);
  b.rename(logits, "logits");
  b.output(logits);
  b.metadata("architecture", std::string("mlp"));
  b.metadata("norm", std::string(norm_name(norm)));
  b.metadata("eps", norm.eps);
  b.metadata("eps_placement", std::string(eps_placement_name(norm.eps_placement)));
  b.metadata("gain_convention", std::string(gain_convention_name(norm.gain_convention)));
  if (norm.is(NormKind::kPRmsNorm)) b.metadata("p", norm.p);
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(config.max_sequence_length);
}

}  // namespace normrt
