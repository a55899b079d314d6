// Sentence-embedding heads.
//   MeanPool    (x [R, D] f32) → [1, D]: per column over the R rows (R may be
//               S), attribute "mode": "mean" (default; summed in double) or
//               "max" (the largest value; a NaN in the column gives NaN, as
//               torch.max). In a batch (runtime/exec/batch_support.h) one row
//               per sequence over its rows (the mean of a sequence of none
//               is zeros, as sentence-transformers' clamped division gives;
//               its max is an error: there is no value to take).
//   L2Normalize (x [.., D] f32) → same shape: each row x / max(‖x‖₂, eps),
//               PyTorch's F.normalize; attribute "eps" (float ≥ 0, default
//               1e-12); ‖x‖₂ and the division in double.
// Aliasing: L2Normalize's y may be x (in place); MeanPool's y must not overlap x.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

enum class PoolMode { kMean, kMax };

Expected<PoolMode> check_mean_pool_node(const Graph& graph, const Node& node,
                                        std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"mode"}));
  NORMRT_ASSIGN_OR_RETURN(const std::string mode, node.string_attribute("mode", "mean"));
  if (mode != "mean" && mode != "max")
    return node_error(node, "attribute 'mode' must be \"mean\" or \"max\", found \"" + mode + "\"");
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, 0, "x", *x);
  if (!s) return s;
  const Shape& shape = x->shape;
  if (shape.size() != 2 || shape[0] == 0) {
    return node_error(node, "operand 0 (x) '" + x->name +
                                "' must have shape [R, D] with R >= 1 "
                                "(R may be S), found " +
                                shape_string(shape));
  }
  outputs = {{DataType::kF32, {1, shape[1]}}};
  return mode == "max" ? PoolMode::kMax : PoolMode::kMean;
}

Status infer_mean_pool(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_mean_pool_node(graph, node, outputs).status();
}

// y [cols] = the mean of the `rows` rows of x (zeros if none).
void mean_rows(const float* x, size_t rows, size_t cols, float* y) {
  constexpr size_t kBlock = 64;  // columns summed at once: the sums stay in registers/L1
  for (size_t begin = 0; begin < cols; begin += kBlock) {
    const size_t width = cols - begin < kBlock ? cols - begin : kBlock;
    double sums[kBlock] = {};
    for (size_t r = 0; r < rows; ++r) {
      const float* row = x + r * cols + begin;
      for (size_t j = 0; j < width; ++j) sums[j] += row[j];
    }
    const double count = rows == 0 ? 1.0 : double(rows);
    for (size_t j = 0; j < width; ++j) y[begin + j] = static_cast<float>(sums[j] / count);
  }
}

// y [cols] = the largest of the `rows` rows of x per column (zeros if none).
// Row by row, so that x is read in order; a NaN sticks (NaN > v and v > NaN
// are both false, so it is carried explicitly).
void max_rows(const float* x, size_t rows, size_t cols, float* y) {
  if (rows == 0) {
    std::fill(y, y + cols, 0.0f);
    return;
  }
  std::copy(x, x + cols, y);
  for (size_t r = 1; r < rows; ++r) {
    const float* row = x + r * cols;
    for (size_t j = 0; j < cols; ++j)
      if (row[j] > y[j] || std::isnan(row[j])) y[j] = std::isnan(y[j]) ? y[j] : row[j];
  }
}

using PoolRows = void (*)(const float* x, size_t rows, size_t cols, float* y);

// One output row over all of x, or in a batch one per sequence over its rows.
class PoolOp final : public OpKernel {
 public:
  explicit PoolOp(PoolRows pool) : pool_(pool) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const size_t cols = x.dims[1];
    const uint32_t* offsets = context.sequence_offsets;
    if (offsets == nullptr) {
      pool_(x.f32(), x.dims[0], cols, context.outputs[0].f32());
      return Status::ok();
    }
    for (size_t b = 0; b < context.batch; ++b) {
      const size_t rows = offsets[b + 1] - offsets[b];
      if (rows == 0 && pool_ == max_rows) {
        return Status::error("MeanPool (max): sequence " + std::to_string(b) +
                             " of the batch has no token (its attention mask row is all 0), "
                             "so no value to take the maximum of");
      }
      pool_(x.f32() + size_t{offsets[b]} * cols, rows, cols, context.outputs[0].f32() + b * cols);
    }
    return Status::ok();
  }

 private:
  PoolRows pool_;
};

Expected<std::unique_ptr<OpKernel>> create_mean_pool(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(PoolMode mode,
                          check_mean_pool_node(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new PoolOp(mode == PoolMode::kMax ? max_rows : mean_rows));
}

Expected<double> check_l2_normalize_node(const Graph& graph, const Node& node,
                                         std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"eps"}));
  Expected<double> eps = node.float_attribute("eps", 1e-12);
  if (!eps) return eps.status();
  if (!(*eps >= 0.0 && *eps <= DBL_MAX)) {
    return node_error(node,
                      "attribute 'eps' must be finite and >= 0, found " + std::to_string(*eps));
  }
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, 0, "x", *x);
  if (!s) return s;
  outputs = {{DataType::kF32, x->shape}};
  return eps;
}

Status infer_l2_normalize(const Graph& graph, const Node& node,
                          std::vector<InferredTensor>& outputs) {
  return check_l2_normalize_node(graph, node, outputs).status();
}

class L2NormalizeOp final : public OpKernel {
 public:
  explicit L2NormalizeOp(double eps) : eps_(eps) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const size_t n = x.cols(), rows = x.rows();
    for (size_t r = 0; r < rows; ++r) {
      const float* src = x.f32() + r * n;
      float* dst = context.outputs[0].f32() + r * n;
      double squares = 0.0;
      for (size_t i = 0; i < n; ++i) squares += double(src[i]) * src[i];
      const double denominator = std::fmax(std::sqrt(squares), eps_);
      for (size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i] / denominator);
    }
    return Status::ok();
  }

 private:
  double eps_;
};

Expected<std::unique_ptr<OpKernel>> create_l2_normalize(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(double eps,
                          check_l2_normalize_node(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new L2NormalizeOp(eps));
}

}  // namespace

const OpSchema kMeanPoolSchema = {OpType::kMeanPool, "MeanPool",      1, 1, 1, 1,
                                  infer_mean_pool,   create_mean_pool};
const OpSchema kL2NormalizeSchema = {OpType::kL2Normalize, "L2Normalize",      1, 1, 1, 1,
                                     infer_l2_normalize,   create_l2_normalize};

}  // namespace normrt
