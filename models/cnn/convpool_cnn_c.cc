#include "models/cnn/convpool_cnn_c.h"

#include <cmath>
#include <string>
#include <vector>

#include "models/config_checks.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

// One convolution of the network: output channels, kernel side, padding.
struct ConvLayer {
  int64_t channels, kernel, pad;
  bool pool_after;  // a 2×2 max-pool, stride 2, follows
};

std::vector<ConvLayer> layers(const ConvPoolCnnConfig& c) {
  const int64_t c1 = c.stage1_channels, c2 = c.stage2_channels;
  return {{c1, 3, 1, false}, {c1, 3, 1, false}, {c1, 3, 1, true},
          {c2, 3, 1, false}, {c2, 3, 1, false}, {c2, 3, 1, true},
          {c2, 3, 0, false}, {c2, 1, 0, false}, {c2, 1, 0, false}};
}

// The side of the last layers' planes: S → S/2 → S/4 (floored) → − 2.
int64_t last_side(int64_t image_size) { return image_size / 2 / 2 - 2; }

}  // namespace

Status check_convpool_cnn_config(const ConvPoolCnnConfig& c) {
  for (auto [field, value] : {std::pair<const char*, int64_t>{"in_channels", c.in_channels},
                              {"stage1_channels", c.stage1_channels},
                              {"stage2_channels", c.stage2_channels},
                              {"num_classes", c.num_classes},
                              {"image_size", c.image_size}}) {
    NORMRT_RETURN_IF_ERROR(check_config_range(field, value, 1, 4096));
  }
  NORMRT_RETURN_IF_ERROR(check_config_range("batch", c.batch, 1, 1024));
  if (last_side(c.image_size) < 1) {
    return Status::error(
        "config: image_size = " + std::to_string(c.image_size) +
        " is too small: two 2x2 pools and a valid 3x3 convolution need at least 12");
  }
  if (c.conv_algorithm != "direct" && c.conv_algorithm != "winograd") {
    return Status::error("config: conv_algorithm '" + c.conv_algorithm +
                         "' is not direct or winograd");
  }
  if (!std::isfinite(c.negative_slope)) {
    return Status::error("config: negative_slope must be finite");
  }
  NORMRT_RETURN_IF_ERROR(check_norm_config(c.norm));
  const int64_t side = last_side(c.image_size);
  NORMRT_RETURN_IF_ERROR(check_partial_width(
      c.norm, side * side,
      "a plane of the last layers (" + std::to_string(side) + "x" + std::to_string(side) + ")",
      "config: p ="));
  if (c.normalize_dense) {
    NORMRT_RETURN_IF_ERROR(
        check_partial_width(c.norm, c.num_classes, "the dense layer's outputs", "config: p ="));
  }
  return Status::ok();
}

Expected<Graph> build_convpool_cnn_c(const ConvPoolCnnConfig& config, const WeightSource& source) {
  NORMRT_RETURN_IF_ERROR(check_convpool_cnn_config(config));
  const NormConfig& norm = config.norm;
  const bool normalized = norm.enabled;
  GraphBuilder b;
  WeightChecker weights(source);
  auto weight = [&](const std::string& name, const Shape& shape) {
    return add_weight(b, name, shape, weights.read(name, shape), DataType::kF32);
  };
  const std::vector<Attribute> lrelu = {{"activation", std::string("leaky_relu")},
                                        {"negative_slope", config.negative_slope}};
  const std::vector<Attribute> spatial = norm_attributes(norm, NormAxes::kSpatial);

  const int64_t batch = config.batch;
  int64_t channels = config.in_channels, side = config.image_size;
  TensorId x = b.input("x", DataType::kF32, {batch, channels, side, side});
  const std::vector<ConvLayer> conv_layers = layers(config);
  for (size_t i = 0; i < conv_layers.size(); ++i) {
    const ConvLayer& layer = conv_layers[i];
    const std::string conv = "conv." + std::to_string(i);
    const int64_t out = layer.channels, k = layer.kernel;
    std::vector<TensorId> inputs = {x, weight(conv + ".weight", {out, channels, k, k})};
    if (!normalized) inputs.push_back(weight(conv + ".bias", {out}));
    side = side + 2 * layer.pad - k + 1;
    const Shape shape = {batch, out, side, side};
    x = b.node(OpType::kConv2d, conv, inputs, {shape},
               {{"pads", std::vector<int64_t>{layer.pad, layer.pad, layer.pad, layer.pad}},
                {"algorithm", config.conv_algorithm}});
    if (normalized) {
      const std::string n = "norm." + std::to_string(i);
      x = b.node(norm_op_type(norm.kind), n,
                 {x, weight(n + ".weight", {out}), weight(n + ".bias", {out})}, {shape}, spatial);
    }
    x = b.node(OpType::kActivation, "lrelu." + std::to_string(i), {x}, {shape}, lrelu);
    channels = out;
    if (layer.pool_after) {
      side /= 2;
      x = b.node(OpType::kMaxPool2d, "pool." + std::to_string(i), {x},
                 {{batch, channels, side, side}},
                 {{"kernel", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
    }
  }
  x = b.node(OpType::kGlobalAvgPool, "global_pool", {x}, {{batch, channels}});
  const int64_t classes = config.num_classes;
  const bool dense_norm = normalized && config.normalize_dense;
  std::vector<TensorId> dense = {x, weight("dense.weight", {classes, channels})};
  if (!dense_norm) dense.push_back(weight("dense.bias", {classes}));
  x = b.node(OpType::kLinear, "dense", dense, {{batch, classes}});
  if (dense_norm) {
    x = b.node(norm_op_type(norm.kind), "dense_norm",
               {x, weight("dense_norm.weight", {classes}), weight("dense_norm.bias", {classes})},
               {{batch, classes}}, norm_attributes(norm));
  }
  b.rename(x, "logits");
  b.output(x);
  b.metadata("architecture", std::string("convpool_cnn_c"));
  b.metadata("norm", std::string(norm_name(norm)));
  b.metadata("eps", norm.eps);
  b.metadata("eps_placement", std::string(eps_placement_name(norm.eps_placement)));
  b.metadata("gain_convention", std::string(gain_convention_name(norm.gain_convention)));
  if (norm.is(NormKind::kPRmsNorm)) b.metadata("p", norm.p);
  b.metadata("negative_slope", config.negative_slope);
  NORMRT_RETURN_IF_ERROR(weights.finish());
  return b.finish(1);
}

}  // namespace normrt
