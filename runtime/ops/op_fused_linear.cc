// FusedLinear, made by the fusion pass (it may also come from a file):
//   (x [.., K], W [N, K] weight, bias [N]?, residual [.., N]?, gain [N]?, norm_bias [N]?)
//     → (y [.., N], sum [.., N]?)
//   t = x · Wᵀ + bias + residual      (written to sum if present; needs a residual)
//   y = act(norm(t; gain, norm_bias))
// One fused_linear() call (kernels/linear/fused_linear.h) with the session's
// thread pool. Attributes: "norm" and the norm convention (runtime/graph/norm_attributes.h),
// "activation" (default "none") and "negative_slope" (op_activation_attributes.h).
// Aliasing: y must not overlap x or residual; sum may be residual, nothing else.
#include <memory>
#include <string>
#include <utility>

#include "kernels/linear/fused_linear.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_activation_attributes.h"
#include "runtime/ops/op_linear_weights.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

enum Operand : size_t { kX, kW, kBias, kResidual, kGain, kNormBias };

// What create() needs beyond the weights.
struct FusedConfig {
  NormSelection norm;
  ActivationSelection activation;
};

Expected<FusedConfig> check_fused_node(const Graph& graph, const Node& node,
                                       std::vector<InferredTensor>& outputs) {
  std::vector<std::string_view> names = kNormConventionAttributeNames;
  names.insert(names.end(), {"norm", "p"});
  names.insert(names.end(), kActivationAttributeNames.begin(), kActivationAttributeNames.end());
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, names));
  FusedConfig config;
  NORMRT_ASSIGN_OR_RETURN(NormSelection norm, norm_selection_from_attributes(node));
  config.norm = norm;
  NORMRT_ASSIGN_OR_RETURN(ActivationSelection activation, activation_from_attributes(node, false));
  config.activation = activation;

  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, kX, "x"));
  Status s = check_dtype(node, kX, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, kX, "x", *x);
  if (s) s = check_linear_weight(graph, node, kW);
  if (!s) return s;
  const Shape& w_shape = graph.tensors[node.inputs[kW]].shape;  // [N, K]
  const int64_t n = w_shape[0];
  if (x->shape.back() != w_shape[1]) {
    return node_error(node, "operand 0 (x) '" + x->name +
                                "' has K = " + std::to_string(x->shape.back()) +
                                " features, but W is " + shape_string(w_shape) +
                                " ([N, K]) with K = " + std::to_string(w_shape[1]));
  }
  Shape y = x->shape;
  y.back() = n;
  const Tensor* bias = input_tensor(graph, node, kBias);
  const Tensor* residual = input_tensor(graph, node, kResidual);
  const Tensor* gain = input_tensor(graph, node, kGain);
  const Tensor* norm_bias = input_tensor(graph, node, kNormBias);
  if (bias != nullptr && !(s = check_f32_vector(node, kBias, "bias", *bias, n))) return s;
  if (residual != nullptr) {
    s = check_dtype(node, kResidual, "residual", *residual, {DataType::kF32});
    if (s) s = check_shape(node, kResidual, "residual", *residual, y);
    if (!s) return s;
  }
  if (!config.norm.enabled && (gain != nullptr || norm_bias != nullptr)) {
    return node_error(
        node, "operands 4 (gain) and 5 (norm_bias) need a norm, but attribute 'norm' is \"none\"");
  }
  if (gain != nullptr && !(s = check_f32_vector(node, kGain, "gain", *gain, n))) return s;
  if (norm_bias != nullptr &&
      !(s = check_f32_vector(node, kNormBias, "norm_bias", *norm_bias, n))) {
    return s;
  }
  if (output_tensor(graph, node, 1) != nullptr && residual == nullptr) {
    return node_error(node, "output 1 (sum) needs operand 3 (residual): there is nothing to sum");
  }
  if (config.norm.enabled) {  // the kernel's parameter checks (eps, p with n, gain convention)
    Status valid =
        norm_params_validate(config.norm.params, static_cast<size_t>(n), gain != nullptr);
    if (!valid) return node_error(node, valid.message());
  }
  outputs.assign(node.outputs.size(), {DataType::kF32, y});
  return config;
}

Status infer_fused_linear(const Graph& graph, const Node& node,
                          std::vector<InferredTensor>& outputs) {
  return check_fused_node(graph, node, outputs).status();
}

class FusedLinearOp final : public OpKernel {
 public:
  size_t weight_copy_bytes() const override { return w_.borrowed() ? 0 : w_.size_bytes(); }
  FusedLinearOp(PackedWeights w, FusedConfig config, std::string choice, std::string label)
      : w_(std::move(w)), config_(config), choice_(std::move(choice)), label_(std::move(label)) {}
  std::string kernel_choice() const override { return choice_; }

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[kX];
    const size_t n = w_.n();
    LinearEpilogue epilogue;
    epilogue.bias = optional_input_f32(context, kBias);
    epilogue.residual = optional_input_f32(context, kResidual);
    epilogue.residual_stride = n;
    epilogue.sum_dst = optional_output_f32(context, 1);
    epilogue.sum_stride = n;
    epilogue.normalize = config_.norm.enabled;
    epilogue.norm = config_.norm.params;
    epilogue.gain = optional_input_f32(context, kGain);
    epilogue.norm_bias = optional_input_f32(context, kNormBias);
    epilogue.activation = config_.activation.kind;
    epilogue.activation_alpha = config_.activation.alpha;
    // Validated when the node was built (check_fused_node) and placed by the
    // plan: unchecked, except in debug builds, where only a plan that broke the
    // aliasing contract fails.
    Status s = fused_linear_unchecked(w_, x.f32(), x.rows(), w_.k(), epilogue,
                                      context.outputs[0].f32(), n, context.pool);
    return s ? s : Status::error(label_ + ": " + s.message());
  }

 private:
  PackedWeights w_;
  FusedConfig config_;
  std::string choice_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_fused_linear(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(FusedConfig config,
                          check_fused_node(context.graph, context.node, outputs));
  std::string reason;
  const LinearPackRequest request{context.isa, context.bf16_activations};
  NORMRT_ASSIGN_OR_RETURN(PackedWeights w,
                          pack_linear_weight(context.graph, context.node, kW, request, &reason));
  // A GELU output that only feeds matmuls which round it (to bf16 or int8)
  // needs no more than that accuracy (activation.h: kGeluErfBf16).
  if (config.activation.kind == Activation::kGeluErf &&
      readers_round_x(context.graph, context.node.outputs[0], request)) {
    config.activation.kind = Activation::kGeluErfBf16;
    reason += "; GELU to bf16 accuracy (gelu_erf_bf16): its readers round it to bf16 or int8";
  }
  // The backend table answers normrt for every fused epilogue (column ranges).
  return std::unique_ptr<OpKernel>(new FusedLinearOp(
      std::move(w), config, "normrt (fused epilogue): " + reason, node_label(context.node)));
}

}  // namespace

const OpSchema kFusedLinearSchema = {OpType::kFusedLinear, "FusedLinear",      2, 6, 1, 2,
                                     infer_fused_linear,   create_fused_linear};

}  // namespace normrt
