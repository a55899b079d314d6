#include "models/handwriting/handwriting_model.h"

#include <string>
#include <vector>

#include "models/config_checks.h"
#include "models/rnn/rnn_graph.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

constexpr int64_t kPenFeatures = 3;  // x1, x2, end of stroke

}  // namespace

Status check_handwriting_config(const HandwritingConfig& c) {
  NORMRT_RETURN_IF_ERROR(check_config_range("hidden_size", c.hidden_size, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(check_config_range("num_layers", c.num_layers, 1, 64));
  NORMRT_RETURN_IF_ERROR(check_config_range("components", c.components, 1, 1 << 16));
  NORMRT_RETURN_IF_ERROR(
      check_config_range("max_sequence_length", c.max_sequence_length, 1, 1 << 20));
  if (c.graph != "predict" && c.graph != "sample")
    return Status::error("config: graph '" + c.graph + "' is not predict or sample");
  NORMRT_RETURN_IF_ERROR(check_norm_config(c.norm));
  NORMRT_RETURN_IF_ERROR(
      check_partial_width(c.norm, c.hidden_size, "the cell's columns", "config: p ="));
  return Status::ok();
}

Expected<Graph> build_handwriting_model(const HandwritingConfig& config,
                                        const WeightSource& source) {
  NORMRT_RETURN_IF_ERROR(check_handwriting_config(config));
  WeightChecker weights(source);
  const NormConfig& norm = config.norm;
  const bool normalized = norm.enabled;
  const bool sample = config.graph == "sample";
  const int64_t h = config.hidden_size, g = 4 * h, m = config.components, out = 1 + 6 * m;
  const int64_t rows = sample ? 1 : kSequenceDim;
  GraphBuilder b;
  auto weight = [&](const std::string& name, const Shape& shape) {
    return add_weight(b, name, shape, weights.read(name, shape), DataType::kF32);
  };

  TensorId pen = kNoTensor, step = kNoTensor, bias = kNoTensor;
  if (sample) {
    pen = b.state("pen", DataType::kF32, {1, kPenFeatures});
    step = b.state("step", DataType::kI32, {1});
    bias = b.input("bias", DataType::kF32, {1});
  }
  const TensorId x = sample ? pen : b.input("x", DataType::kF32, {kSequenceDim, kPenFeatures});

  std::vector<Attribute> cell = norm_attributes(norm);
  cell.push_back(norm_selection_attribute(norm));
  cell.push_back({"placement", std::string(normalized ? "projections_and_cell" : "none")});
  std::vector<TensorId> hidden;
  for (int64_t l = 0; l < config.num_layers; ++l) {
    const std::string p = "layers." + std::to_string(l);
    TensorId in = l == 0 ? x : hidden.back();
    int64_t width = l == 0 ? kPenFeatures : h;
    if (l > 0 && config.skip_connections) {
      width = kPenFeatures + h;
      in = b.node(OpType::kConcat, p + ".input", {x, hidden.back()}, {{rows, width}},
                  {{"axis", int64_t(1)}});
    }
    auto norm_weight = [&](const std::string& module, bool gain, int64_t n) {
      if (!normalized) return kNoTensor;
      const std::string name =
          gain ? norm_gain_name(norm, p + "." + module) : norm_bias_name(norm, p + "." + module);
      return weight(name, {n});
    };
    const TensorId h_state = b.state(p + ".h", DataType::kF32, {1, h});
    const TensorId c_state = b.state(p + ".c", DataType::kF32, {1, h});
    b.node(OpType::kLstmCell, p,
           {in, h_state, c_state, weight(p + ".w_x.weight", {g, width}),
            weight(p + ".w_h.weight", {g, h}), weight(p + ".bias", {g}),
            norm_weight("norm_h", true, g), norm_weight("norm_h", false, g),
            norm_weight("norm_x", true, g), norm_weight("norm_x", false, g),
            norm_weight("norm_c", true, h), norm_weight("norm_c", false, h)},
           {{rows, h}, {1, h}, {1, h}}, cell);
    hidden.push_back(b.last_outputs()[0]);
    b.state_update(h_state, b.last_outputs()[1]);
    b.state_update(c_state, b.last_outputs()[2]);
  }
  TensorId features = hidden.back();
  int64_t feature_width = h;
  if (config.skip_connections && hidden.size() > 1) {
    feature_width = h * config.num_layers;
    features = b.node(OpType::kConcat, "head.input", hidden, {{rows, feature_width}},
                      {{"axis", int64_t(1)}});
  }
  const TensorId y_hat =
      b.node(OpType::kLinear, "head",
             {features, weight("head.weight", {out, feature_width}), weight("head.bias", {out})},
             {{rows, out}});
  const TensorId params =
      b.node(OpType::kMixtureDensity, "mixture", {y_hat, bias}, {{rows, out}}, {{"components", m}});
  b.rename(params, "params");
  if (sample) {
    b.node(OpType::kMixtureSample, "sample", {params, step}, {{1, kPenFeatures}, {1}},
           {{"components", m}, {"seed", config.seed}});
    const TensorId point = b.last_outputs()[0];
    const TensorId step_next = b.last_outputs()[1];
    b.graph().tensors[step_next].dtype = DataType::kI32;
    b.rename(point, "point");
    b.state_update(pen, point);
    b.state_update(step, step_next);
    b.output(point);
  }
  b.output(params);
  b.metadata("architecture", std::string("handwriting"));
  b.metadata("norm", std::string(norm_name(norm)));
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(sample ? 1 : config.max_sequence_length);
}

}  // namespace normrt
