// Add, Mul: (a f32, b f32) → y = a + b, a ⊙ b, with y shaped as a.
// b's shape equals a's or is a suffix of it (b is repeated over a's leading
// axes: a bias [D] over [S, D], position rows [S, D] over [.., S, D]; a rank-0
// b is a scalar).
// Aliasing: y may be a (in place); y may be b only when their shapes are equal.
#include <cstddef>
#include <memory>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_elementwise(const Graph& graph, const Node& node,
                         std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* a, required_input(graph, node, 0, "a"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* b, required_input(graph, node, 1, "b"));
  Status s = check_dtype(node, 0, "a", *a, {DataType::kF32});
  if (s) s = check_dtype(node, 1, "b", *b, {DataType::kF32});
  if (!s) return s;
  const Shape& a_shape = a->shape;
  const Shape& b_shape = b->shape;
  const bool suffix = b_shape.size() <= a_shape.size() &&
                      Shape(a_shape.end() - b_shape.size(), a_shape.end()) == b_shape;
  if (!suffix) {
    return node_error(node, "operand 1 (b) '" + b->name + "' " + shape_string(b_shape) +
                                " must have the shape of operand 0 (a) '" + a->name + "' " +
                                shape_string(a_shape) + " or a suffix of it");
  }
  outputs = {{DataType::kF32, a_shape}};
  return Status::ok();
}

struct AddOp {
  static float apply(float a, float b) { return a + b; }
};
struct MulOp {
  static float apply(float a, float b) { return a * b; }
};

template <class Op>
class ElementwiseOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const float* a = context.inputs[0].f32();
    const float* b = context.inputs[1].f32();
    float* y = context.outputs[0].f32();
    const size_t n = context.inputs[0].elements();
    const size_t period = context.inputs[1].elements();  // divides n (suffix shape)
    if (period == 0) return Status::ok();
    for (size_t begin = 0; begin < n; begin += period) {
      for (size_t j = 0; j < period; ++j) y[begin + j] = Op::apply(a[begin + j], b[j]);
    }
    return Status::ok();
  }
};

template <class Op>
Expected<std::unique_ptr<OpKernel>> create_elementwise(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_elementwise(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new ElementwiseOp<Op>());
}

}  // namespace

const OpSchema kAddSchema = {
    OpType::kAdd, "Add", 2, 2, 1, 1, infer_elementwise, create_elementwise<AddOp>};
const OpSchema kMulSchema = {
    OpType::kMul, "Mul", 2, 2, 1, 1, infer_elementwise, create_elementwise<MulOp>};

}  // namespace normrt
