// Softmax: (x [.., n] f32) → y, same shape, over the last axis:
//   y_i = exp(x_i − m) / Σ_j exp(x_j − m),  m = max_j x_j
// (max-subtracted, so no overflow; the sum is accumulated in double).
// Special rows: every element −inf (fully masked) → all zeros, where PyTorch
// gives NaN; a NaN or a +inf anywhere in the row → the whole row NaN.
// Aliasing: y may be x (in place); no other overlap.
#include <cmath>
#include <limits>
#include <memory>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Status infer_softmax(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, 0, "x", *x);
  if (!s) return s;
  outputs = {{DataType::kF32, x->shape}};
  return Status::ok();
}

void softmax_row(const float* x, float* y, size_t n) {
  float max = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) {
    if (!(x[i] <= max)) max = x[i];  // a NaN wins, so it reaches every output
  }
  if (max == -std::numeric_limits<float>::infinity()) {
    for (size_t i = 0; i < n; ++i) y[i] = 0.0f;
    return;
  }
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - max);  // +inf − +inf = NaN: a +inf row becomes NaN
    sum += y[i];
  }
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(y[i] / sum);  // one rounding
}

class SoftmaxOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const size_t n = x.cols();
    const size_t rows = x.rows();
    for (size_t r = 0; r < rows; ++r) {
      softmax_row(x.f32() + r * n, context.outputs[0].f32() + r * n, n);
    }
    return Status::ok();
  }
};

Expected<std::unique_ptr<OpKernel>> create_softmax(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_softmax(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new SoftmaxOp());
}

}  // namespace

const OpSchema kSoftmaxSchema = {OpType::kSoftmax, "Softmax",     1, 1, 1, 1,
                                 infer_softmax,    create_softmax};

}  // namespace normrt
