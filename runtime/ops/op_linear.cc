// Linear: (x [.., K], W [N, K] f32|bf16|int8 weight, bias [N] f32?) → y [.., N]
//   y = x · Wᵀ + b, every leading position a row (kernels/linear/linear.h).
// At create() the backend is chosen per node (kernels/linear/linear_backend.h:
// normrt's kernels, or oneDNN's matmul where the measured table or
// NORMRT_LINEAR_BACKEND says so) and W is packed once for it. y must not
// overlap x or bias.
// On a session pool with normrt's kernels: fused_linear() with the bias
// alone, which splits the columns across the threads from
// kFusedLinearMinParallelWork (several rows) or kFusedLinearMinParallelBytes
// (one row, where that pays).
#include <memory>
#include <string>
#include <utility>

#include "kernels/linear/fused_linear.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/linear_backend.h"
#include "runtime/ops/op_linear_backend.h"
#include "runtime/ops/op_linear_weights.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_linear(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, 0, "x", *x);
  if (s) s = check_linear_weight(graph, node, 1);
  if (!s) return s;
  const Shape& w_shape = graph.tensors[node.inputs[1]].shape;  // [N, K]
  if (x->shape.back() != w_shape[1]) {
    return node_error(node, "operand 0 (x) '" + x->name +
                                "' has K = " + std::to_string(x->shape.back()) +
                                " features, but W is " + shape_string(w_shape) +
                                " ([N, K]) with K = " + std::to_string(w_shape[1]));
  }
  if (const Tensor* bias = input_tensor(graph, node, 2)) {
    if (s = check_f32_vector(node, 2, "bias", *bias, w_shape[0]); !s) return s;
  }
  Shape y = x->shape;
  y.back() = w_shape[0];
  outputs = {{DataType::kF32, y}};
  return Status::ok();
}

class LinearOp final : public OpKernel {
 public:
  LinearOp(PackedWeights w, std::unique_ptr<OneDnnLinear> onednn, std::string choice,
           std::string label)
      : w_(std::move(w)),
        onednn_(std::move(onednn)),
        choice_(std::move(choice)),
        label_(std::move(label)) {}

  size_t weight_copy_bytes() const override {
    if (onednn_ != nullptr) return onednn_->weight_bytes();
    return w_.borrowed() ? 0 : w_.size_bytes();
  }
  std::string kernel_choice() const override { return choice_; }

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const TensorView& y = context.outputs[0];
    const float* bias = context.input_count > 2 ? context.inputs[2].f32() : nullptr;
    Status s = Status::ok();
    if (onednn_ != nullptr) {
      s = onednn_->run_rows(x.f32(), x.rows(), y.f32(), bias,
                            context.pool != nullptr ? context.pool->size() : 1);
    } else if (context.pool != nullptr) {
      LinearEpilogue epilogue;
      epilogue.bias = bias;
      s = fused_linear(w_, x.f32(), x.rows(), w_.k(), epilogue, y.f32(), w_.n(), context.pool);
    } else {
      s = linear(w_, x.f32(), x.rows(), w_.k(), y.f32(), w_.n(), bias);
    }
    // Only a plan that broke the aliasing contract (or oneDNN failing) fails here.
    return s ? s : Status::error(label_ + ": " + s.message());
  }

 private:
  PackedWeights w_;
  std::unique_ptr<OneDnnLinear> onednn_;  // null: normrt's kernels
  std::string choice_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_linear(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_linear(context.graph, context.node, outputs));
  const Tensor& x = context.graph.tensors[context.node.inputs[0]];
  // Rows per call at most: the rows of x at S = max_sequence_length.
  const size_t k = static_cast<size_t>(x.shape.back());
  const size_t max_rows =
      shape_elements(x.shape, static_cast<size_t>(context.graph.max_sequence_length)) / k;
  NORMRT_ASSIGN_OR_RETURN(LinearBackendChoice backend,
                          choose_node_backend(context, 1, max_rows, false));
  std::string choice =
      std::string(linear_backend_name(backend.backend)) + " (" + backend.reason + ")";
  if (backend.backend == LinearBackend::kOneDnn) {
    NORMRT_ASSIGN_OR_RETURN(
        std::unique_ptr<OneDnnLinear> onednn,
        make_onednn_linear(context, 1,
                           context.node.inputs.size() > 2 && context.node.inputs[2] != kNoTensor));
    choice += ": " + onednn->impl_name();
    return std::unique_ptr<OpKernel>(
        new LinearOp(PackedWeights(), std::move(onednn), choice, node_label(context.node)));
  }
  std::string reason;
  NORMRT_ASSIGN_OR_RETURN(
      PackedWeights w,
      pack_linear_weight(context.graph, context.node, 1,
                         LinearPackRequest{context.isa, context.bf16_activations}, &reason));
  choice += ": " + reason;
  return std::unique_ptr<OpKernel>(
      new LinearOp(std::move(w), nullptr, choice, node_label(context.node)));
}

}  // namespace

const OpSchema kLinearSchema = {OpType::kLinear, "Linear", 2, 3, 1, 1, infer_linear, create_linear};

}  // namespace normrt
