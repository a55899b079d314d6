// Activation: (x f32) → y = act(x), same shape; attribute "activation"
// (required; an activation_name(): none, relu, gelu_erf, gelu_tanh, silu,
// tanh, sigmoid, leaky_relu) and, for leaky_relu, "negative_slope"
// (op_activation_attributes.h), through the activation kernel of the plan's ISA.
// Aliasing: y may be x (in place); no other overlap.
#include <memory>
#include <string>

#include "kernels/activation/activation.h"
#include "runtime/ops/op_activation_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Expected<ActivationSelection> check_activation_node(const Graph& graph, const Node& node,
                                                    std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, kActivationAttributeNames));
  Expected<ActivationSelection> activation = activation_from_attributes(node, true);
  if (!activation) return activation.status();

  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "x", *x, {DataType::kF32}));
  outputs = {{DataType::kF32, x->shape}};
  return activation;
}

Status infer_activation(const Graph& graph, const Node& node,
                        std::vector<InferredTensor>& outputs) {
  return check_activation_node(graph, node, outputs).status();
}

class ActivationOp final : public OpKernel {
 public:
  ActivationOp(ActivationSelection activation, ActivationKernel kernel)
      : activation_(activation), kernel_(kernel) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    kernel_(activation_.kind, activation_.alpha, x.f32(), context.outputs[0].f32(), x.elements());
    return Status::ok();
  }

 private:
  ActivationSelection activation_;
  ActivationKernel kernel_;
};

Expected<std::unique_ptr<OpKernel>> create_activation(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(ActivationSelection activation,
                          check_activation_node(context.graph, context.node, outputs));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  ActivationKernel kernel = activation_kernel_for(context.isa);
  if (kernel == nullptr) {
    return node_error(context.node,
                      std::string("no activation kernel compiled for ") + isa_name(context.isa));
  }
  return std::unique_ptr<OpKernel>(new ActivationOp(activation, kernel));
}

}  // namespace

const OpSchema kActivationSchema = {OpType::kActivation, "Activation",     1, 1, 1, 1,
                                    infer_activation,    create_activation};

}  // namespace normrt
