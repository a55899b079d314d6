// Conv2d: 2-D convolution on oneDNN (kernels/conv/conv_onednn.h), NCHW:
//   (x [N, C, H, W] f32, W [O, C, kh, kw] f32 weight, bias [O]?, gain [O]?, norm_bias [O]?)
//     → y [N, O, OH, OW]
//   t = conv(x, W) + bias
//   y = act(t)                                       without a norm
//   y = act(spatial_norm(t; gain, norm_bias))        "norm" set: per channel over OH×OW
// Attributes:
//   strides   [sh, sw] ≥ 1, default [1, 1]
//   pads      [top, left, bottom, right] ≥ 0 (each smaller than the kernel), default 0
//   activation, negative_slope (op_activation_attributes.h)
//   norm and its convention (runtime/graph/norm_attributes.h): the fusion pass's
//             Conv2d → spatial norm → Activation (fuse_conv_chains.h)
//   algorithm "direct" (default) or "winograd": oneDNN's Winograd where it
//             has one for the shape (3×3, stride 1, AVX-512), else direct
// N, C, H, W are fixed (no S): one primitive, made at plan time for one
// thread, and per session for sessions with more threads (oneDNN's OpenMP
// threads, kernels/onednn/onednn_threads.h). The weights are packed once, into
// the primitive's layout. Aliasing: y must not overlap x.
#include <memory>
#include <string>
#include <utility>

#include "kernels/conv/conv_onednn.h"
#include "kernels/norm/norm_spatial.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/onednn_session_state.h"
#include "runtime/ops/op_activation_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/spatial_norm_run.h"
#include "runtime/ops/window_attributes.h"

namespace normrt {
namespace {

enum Operand : size_t { kX, kW, kBias, kGain, kNormBias };

struct ConvConfig {
  Conv2dShape shape;
  ConvAlgorithm algorithm = ConvAlgorithm::kDirect;
  NormSelection norm;
  ActivationSelection activation;
};

// A fixed NCHW shape: rank 4, every size ≥ 1.
Status check_nchw(const Node& node, size_t index, const char* role, const Tensor& tensor) {
  bool fixed = tensor.shape.size() == 4;
  for (int64_t d : tensor.shape) fixed = fixed && d >= 1;
  if (fixed) return Status::ok();
  return node_error(node, operand_name(index, role) + " '" + tensor.name +
                              "' must have a fixed shape of rank 4 with sizes >= 1, found " +
                              shape_string(tensor.shape));
}

// "strides" and "pads" into the shape.
Status read_geometry(const Node& node, Conv2dShape& shape) {
  NORMRT_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                          int_list_attribute(node, "strides", {1, 1}));
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1) {
    return node_error(node, "attribute 'strides' must be [sh, sw] with both >= 1");
  }
  NORMRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                          int_list_attribute(node, "pads", {0, 0, 0, 0}));
  if (pads.size() != 4 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0) {
    return node_error(node, "attribute 'pads' must be [top, left, bottom, right] with all >= 0");
  }
  set_strides_and_pads(shape, strides, pads);
  return Status::ok();
}

Expected<ConvConfig> check_conv_node(const Graph& graph, const Node& node,
                                     std::vector<InferredTensor>& outputs) {
  std::vector<std::string_view> names = kNormConventionAttributeNames;
  names.insert(names.end(), {"norm", "p", "strides", "pads", "algorithm"});
  names.insert(names.end(), kActivationAttributeNames.begin(), kActivationAttributeNames.end());
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, names));
  ConvConfig config;
  NORMRT_ASSIGN_OR_RETURN(std::string algorithm, node.string_attribute("algorithm", "direct"));
  if (algorithm == "winograd") {
    config.algorithm = ConvAlgorithm::kWinograd;
  } else if (algorithm != "direct") {
    return node_error(node, "attribute 'algorithm' must be \"direct\" or \"winograd\", found \"" +
                                algorithm + "\"");
  }
  NORMRT_ASSIGN_OR_RETURN(NormSelection norm, norm_selection_from_attributes(node));
  config.norm = norm;
  NORMRT_ASSIGN_OR_RETURN(ActivationSelection activation, activation_from_attributes(node, false));
  config.activation = activation;

  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, kX, "x"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* w, required_input(graph, node, kW, "W"));
  Status s = check_dtype(node, kX, "x", *x, {DataType::kF32});
  if (s) s = check_nchw(node, kX, "x", *x);
  if (s) s = check_dtype(node, kW, "W", *w, {DataType::kF32});
  if (s) s = check_kind(node, kW, "W", *w, TensorKind::kWeight);
  if (s) s = check_nchw(node, kW, "W", *w);
  if (!s) return s;
  if (w->layout != TensorLayout::kRowMajor) {
    return node_error(node, "operand 1 (W) '" + w->name + "' must be row-major (OIHW)");
  }
  const Shape& xs = x->shape;
  const Shape& ws = w->shape;
  if (ws[1] != xs[1]) {
    return node_error(node, "operand 1 (W) '" + w->name + "' " + shape_string(ws) +
                                " ([O, C, kh, kw]) has C = " + std::to_string(ws[1]) + ", but x '" +
                                x->name + "' " + shape_string(xs) +
                                " has C = " + std::to_string(xs[1]));
  }
  Conv2dShape& shape = config.shape;
  shape.batch = static_cast<size_t>(xs[0]);
  shape.in_channels = static_cast<size_t>(xs[1]);
  shape.height = static_cast<size_t>(xs[2]);
  shape.width = static_cast<size_t>(xs[3]);
  shape.out_channels = static_cast<size_t>(ws[0]);
  shape.kernel_h = static_cast<size_t>(ws[2]);
  shape.kernel_w = static_cast<size_t>(ws[3]);
  if (s = read_geometry(node, shape); !s) return s;
  if (Status valid = conv2d_validate_shape(shape); !valid) {
    return node_error(node, valid.message());
  }
  const int64_t channels = ws[0];
  const Tensor* bias = input_tensor(graph, node, kBias);
  const Tensor* gain = input_tensor(graph, node, kGain);
  const Tensor* norm_bias = input_tensor(graph, node, kNormBias);
  if (bias != nullptr && !(s = check_f32_vector(node, kBias, "bias", *bias, channels))) return s;
  if (!config.norm.enabled && (gain != nullptr || norm_bias != nullptr)) {
    return node_error(
        node, "operands 3 (gain) and 4 (norm_bias) need a norm, but attribute 'norm' is \"none\"");
  }
  if (gain != nullptr && !(s = check_f32_vector(node, kGain, "gain", *gain, channels))) return s;
  if (norm_bias != nullptr &&
      !(s = check_f32_vector(node, kNormBias, "norm_bias", *norm_bias, channels))) {
    return s;
  }
  if (config.norm.enabled) {  // the kernel's parameter checks (eps, p with OH·OW, gain)
    const size_t plane = shape.out_height() * shape.out_width();
    if (Status valid = norm_params_validate(config.norm.params, plane, gain != nullptr); !valid) {
      return node_error(node, "norm_spatial: " + valid.message().substr(sizeof("norm: ") - 1));
    }
  }
  outputs = {{DataType::kF32,
              {xs[0], channels, static_cast<int64_t>(shape.out_height()),
               static_cast<int64_t>(shape.out_width())}}};
  return config;
}

Status infer_conv(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_conv_node(graph, node, outputs).status();
}

// A session's way to run the primitive: its Context (and, for sessions with
// more than one thread, a primitive of its own), or why it could not be made.
struct ConvSessionState final : OneDnnSessionState<OneDnnConv2d> {
  std::unique_ptr<OneDnnConv2d> own;  // threads > 1 only
  const OneDnnConv2d* conv = nullptr;
};

class Conv2dOp final : public OpKernel {
 public:
  Conv2dOp(ConvConfig config, std::unique_ptr<OneDnnConv2d> conv, const float* weights,
           NormSpatialKernel norm_kernel, std::string label)
      : config_(std::move(config)),
        conv_(std::move(conv)),
        weights_(weights),
        norm_kernel_(norm_kernel),
        label_(std::move(label)) {}

  size_t weight_copy_bytes() const override { return conv_->weight_bytes(); }

  std::unique_ptr<OpSessionState> create_session_state_with_threads(size_t threads) const override {
    auto state = std::make_unique<ConvSessionState>();
    state->conv = conv_.get();
    if (threads > 1) {
      Conv2dOptions options = conv_->options();
      options.threads = threads;
      Expected<std::unique_ptr<OneDnnConv2d>> own =
          OneDnnConv2d::create(config_.shape, weights_, options);
      if (!own) {
        state->error = own.status().message();
        return state;
      }
      state->own = std::move(own).value();
      state->conv = state->own.get();
    }
    state->make_context(*state->conv);
    return state;
  }

  Status run(const OpRunContext& context) const override {
    NORMRT_ASSIGN_OR_RETURN(ConvSessionState * state,
                            prepared_onednn_state<ConvSessionState>(context, label_));
    float* y = context.outputs[0].f32();
    Status s = state->conv->run(*state->context, context.inputs[kX].f32(),
                                optional_input_f32(context, kBias), y);
    if (!s) return Status::error(label_ + ": " + s.message());
    if (!config_.norm.enabled) return Status::ok();
    const TensorView& out = context.outputs[0];
    NormPlanes planes;
    planes.images = out.dims[0];
    planes.channels = out.dims[1];
    planes.plane = out.dims[2] * out.dims[3];
    planes.src = planes.dst = y;
    planes.gain = optional_input_f32(context, kGain);
    planes.bias = optional_input_f32(context, kNormBias);
    planes.activation = config_.activation.kind;
    planes.alpha = config_.activation.alpha;
    run_spatial_norm(norm_kernel_, config_.norm.params, planes, context.pool);
    return Status::ok();
  }

 private:
  ConvConfig config_;
  std::unique_ptr<OneDnnConv2d> conv_;  // one thread, shared by one-thread sessions
  const float* weights_;                // OIHW, in the model (kept alive by it)
  NormSpatialKernel norm_kernel_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_conv(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(ConvConfig config, check_conv_node(context.graph, context.node, outputs));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  NormSpatialKernel norm_kernel = norm_spatial_kernel_for(context.isa);
  if (norm_kernel == nullptr) {
    return node_error(context.node,
                      std::string("no spatial norm kernel compiled for ") + isa_name(context.isa));
  }
  const Tensor& w = context.graph.tensors[context.node.inputs[kW]];
  const auto* weights = reinterpret_cast<const float*>(w.data.bytes);
  Conv2dOptions options;
  options.algorithm = config.algorithm;
  // oneDNN's own layout pays from 16 input channels on; below, the first
  // layer of a CNN (3 → 96 channels, 32×32) measured 1.6× faster on NCHW
  // (gemm) than blocked with its reorders (docs/cnn.md).
  options.blocked = config.shape.in_channels >= 16;
  options.with_bias = input_tensor(context.graph, context.node, kBias) != nullptr;
  // Without a norm the convolution applies the activation; with one it follows the norm.
  if (!config.norm.enabled) {
    options.activation = config.activation.kind;
    options.alpha = config.activation.alpha;
  }
  Expected<std::unique_ptr<OneDnnConv2d>> conv =
      OneDnnConv2d::create(config.shape, weights, options);
  if (!conv) return node_error(context.node, conv.status().message());
  return std::unique_ptr<OpKernel>(new Conv2dOp(std::move(config), std::move(conv).value(), weights,
                                                norm_kernel, node_label(context.node)));
}

}  // namespace

const OpSchema kConv2dSchema = {OpType::kConv2d, "Conv2d", 2, 5, 1, 1, infer_conv, create_conv};

}  // namespace normrt
