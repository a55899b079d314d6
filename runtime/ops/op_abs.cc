// Abs: (x f32, any shape) → y = |x|, same shape. The order embeddings'
// abs() (Vendrov et al., model.py: the sentence and image embeddings are
// mapped into the positive orthant). Exact; NaN stays NaN.
// Aliasing: y may be x (in place).
#include <cmath>
#include <memory>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_abs(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "x", *x, {DataType::kF32}));
  outputs = {{DataType::kF32, x->shape}};
  return Status::ok();
}

class AbsOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const float* x = context.inputs[0].f32();
    float* y = context.outputs[0].f32();
    const size_t n = context.inputs[0].elements();
    for (size_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]);
    return Status::ok();
  }
};

Expected<std::unique_ptr<OpKernel>> create_abs(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_abs(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new AbsOp());
}

}  // namespace

const OpSchema kAbsSchema = {OpType::kAbs, "Abs", 1, 1, 1, 1, infer_abs, create_abs};

}  // namespace normrt
