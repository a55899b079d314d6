// MatMul: (a [M, K] f32, b [N, K] f32) → y [M, N], y_mn = Σ_k a_mk · b_nk,
// i.e. a·bᵀ with both operands computed by the graph (Linear multiplies by
// a stored weight; this op multiplies two activations). M and N may each be
// S or fixed. The attentive reader's bilinear document–question similarity
// (use_dq_sims: (d·W)·(q·W)ᵀ, one score per document position) is
// MatMul(d·W [S, K], q·W [1, K]) → [S, 1].
// Sums in double, rounded once. Aliasing: y must not overlap a or b.
#include <memory>
#include <string>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_matmul(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* a, required_input(graph, node, 0, "a"));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* b, required_input(graph, node, 1, "b"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "a", *a, {DataType::kF32}));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 1, "b", *b, {DataType::kF32}));
  for (auto [index, t] : {std::pair<size_t, const Tensor*>{0, a}, {1, b}}) {
    if (t->shape.size() != 2 || t->shape[1] < 1 || t->shape[0] == 0) {
      return node_error(node, operand_name(index, index == 0 ? "a" : "b") + " '" + t->name +
                                  "' must be a matrix [rows, K] with K >= 1 and rows >= 1 "
                                  "(rows may be S), found " +
                                  shape_string(t->shape));
    }
  }
  if (a->shape[1] != b->shape[1]) {
    return node_error(node, "operand 0 (a) '" + a->name + "' " + shape_string(a->shape) +
                                " and operand 1 (b) '" + b->name + "' " + shape_string(b->shape) +
                                " must have the same K (columns)");
  }
  outputs = {{DataType::kF32, {a->shape[0], b->shape[0]}}};
  return Status::ok();
}

class MatMulOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const TensorView& a = context.inputs[0];
    const TensorView& b = context.inputs[1];
    const size_t m = a.dims[0], n = b.dims[0], k = a.dims[1];
    float* y = context.outputs[0].f32();
    for (size_t i = 0; i < m; ++i) {
      const float* row = a.f32() + i * k;
      for (size_t j = 0; j < n; ++j) {
        const float* col = b.f32() + j * k;
        double sum = 0.0;
        for (size_t t = 0; t < k; ++t) sum += double(row[t]) * col[t];
        y[i * n + j] = static_cast<float>(sum);
      }
    }
    return Status::ok();
  }
};

Expected<std::unique_ptr<OpKernel>> create_matmul(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_matmul(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new MatMulOp());
}

}  // namespace

const OpSchema kMatMulSchema = {OpType::kMatMul, "MatMul", 2, 2, 1, 1, infer_matmul, create_matmul};

}  // namespace normrt
