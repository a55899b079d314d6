// OrderViolation: (x [A, D] f32, y [B, D] f32) → e [A, B],
//   e_ab = Σ_d max(0, x_ad − y_bd)²
// Vendrov et al.'s order-violation penalty ‖max(0, x − y)‖², zero when
// x ≤ y in every coordinate. The order embeddings' code (model.py,
// hierarchical_errors(s, im) with norm 2) scores caption s against image im
// as Σ max(0, s − im)²: x = captions, y = images. A and B may each be S or
// fixed; every pair is scored (build_errors' score matrix).
// Sums in double, rounded once; a NaN in either row makes e NaN.
// Aliasing: e must not overlap x or y.
#include <cmath>
#include <memory>
#include <string>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_order_violation(const Graph& graph, const Node& node,
                             std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* y, required_input(graph, node, 1, "y"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "x", *x, {DataType::kF32}));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 1, "y", *y, {DataType::kF32}));
  for (auto [index, t] : {std::pair<size_t, const Tensor*>{0, x}, {1, y}}) {
    if (t->shape.size() != 2 || t->shape[1] < 1 || t->shape[0] == 0) {
      return node_error(node, operand_name(index, index == 0 ? "x" : "y") + " '" + t->name +
                                  "' must be embeddings [rows, D] with D >= 1 and rows >= 1 "
                                  "(rows may be S), found " +
                                  shape_string(t->shape));
    }
  }
  if (x->shape[1] != y->shape[1]) {
    return node_error(node, "operand 0 (x) '" + x->name + "' " + shape_string(x->shape) +
                                " and operand 1 (y) '" + y->name + "' " + shape_string(y->shape) +
                                " must embed into the same D (columns)");
  }
  outputs = {{DataType::kF32, {x->shape[0], y->shape[0]}}};
  return Status::ok();
}

class OrderViolationOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const TensorView& y = context.inputs[1];
    const size_t a = x.dims[0], b = y.dims[0], d = x.dims[1];
    float* e = context.outputs[0].f32();
    for (size_t i = 0; i < a; ++i) {
      const float* xi = x.f32() + i * d;
      for (size_t j = 0; j < b; ++j) {
        const float* yj = y.f32() + j * d;
        double sum = 0.0;
        for (size_t t = 0; t < d; ++t) {
          const double gap = double(xi[t]) - double(yj[t]);
          // NaN fails gap > 0: carry it into the sum explicitly.
          if (gap > 0.0 || std::isnan(gap)) sum += gap * gap;
        }
        e[i * b + j] = static_cast<float>(sum);
      }
    }
    return Status::ok();
  }
};

Expected<std::unique_ptr<OpKernel>> create_order_violation(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_order_violation(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new OrderViolationOp());
}

}  // namespace

const OpSchema kOrderViolationSchema = {OpType::kOrderViolation, "OrderViolation",      2, 2, 1, 1,
                                        infer_order_violation,   create_order_violation};

}  // namespace normrt
