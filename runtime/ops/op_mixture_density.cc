// MixtureDensity: Graves' (2013) mixture density output, eqs. 18–22, with
// the sampling bias of eqs. 61–62.
//
//   inputs   y_hat [R, 1 + 6M] f32 (R may be S), bias? [1] f32 (absent: 0)
//   outputs  params [R, 1 + 6M] f32
//   attrs    components = M ≥ 1 (required)
//
// Column layout of both, per row (normrt's choice; Graves lists the same
// quantities as (ê, {π̂ʲ, μ̂ʲ, σ̂ʲ, ρ̂ʲ})):
//   [0]                e        end-of-stroke probability
//   [1, 1+M)           π        mixture weights
//   [1+M, 1+2M)        μ1       means of x1 (pen offset x)
//   [1+2M, 1+3M)       μ2       means of x2 (pen offset y)
//   [1+3M, 1+4M)       σ1       standard deviations of x1
//   [1+4M, 1+5M)       σ2       standard deviations of x2
//   [1+5M, 1+6M)       ρ        correlations
//
//   e  = 1 / (1 + exp(ê))                       eq. 18 (Graves' sign)
//   π  = softmax(π̂ · (1 + b))                   eqs. 19, 61
//   μ  = μ̂                                      eq. 20
//   σ  = exp(σ̂ − b)                             eqs. 21, 62
//   ρ  = tanh(ρ̂)                                eq. 22
//
// b = 0 is the unbiased distribution; larger b samples more probable,
// cleaner strokes. b must be finite and ≥ 0 (a run error otherwise: b < −1
// would invert the mixture weights). Computed in double, each output
// rounded once; the softmax is max-subtracted. Aliasing: params may be y_hat.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

Expected<size_t> check_mixture_density(const Graph& graph, const Node& node,
                                       std::vector<InferredTensor>* outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"components"}));
  NORMRT_ASSIGN_OR_RETURN(int64_t m, node.int_attribute("components", 0));
  if (m < 1 || m > (int64_t{1} << 20))
    return node_error(
        node, "attribute 'components' (M) must be in [1, 2^20], found " + std::to_string(m));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* y_hat, required_input(graph, node, 0, "y_hat"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "y_hat", *y_hat, {DataType::kF32}));
  if (y_hat->shape.size() != 2 || y_hat->shape[1] != 1 + 6 * m || y_hat->shape[0] == 0) {
    return node_error(node, "operand 0 (y_hat) '" + y_hat->name + "' must be [R, 1 + 6M] = [R, " +
                                std::to_string(1 + 6 * m) + "] for M = " + std::to_string(m) +
                                " components, found " + shape_string(y_hat->shape));
  }
  if (const Tensor* bias = input_tensor(graph, node, 1)) {
    NORMRT_RETURN_IF_ERROR(check_f32_vector(node, 1, "bias", *bias, 1));
  }
  if (outputs != nullptr) *outputs = {{DataType::kF32, y_hat->shape}};
  return static_cast<size_t>(m);
}

Status infer_mixture_density(const Graph& graph, const Node& node,
                             std::vector<InferredTensor>& outputs) {
  return check_mixture_density(graph, node, &outputs).status();
}

class MixtureDensityOp final : public OpKernel {
 public:
  MixtureDensityOp(size_t components, std::string label)
      : m_(components), label_(std::move(label)) {}

  Status run(const OpRunContext& context) const override {
    double b = 0.0;
    if (const float* bias = optional_input_f32(context, 1)) b = bias[0];
    if (!(b >= 0.0 && std::isfinite(b)))
      return Status::error(label_ + ": the sampling bias must be finite and >= 0, found " +
                           message_number(b));
    const TensorView& y_hat = context.inputs[0];
    const size_t rows = y_hat.dims[0], width = 1 + 6 * m_;
    for (size_t r = 0; r < rows; ++r) {
      const float* in = y_hat.f32() + r * width;
      float* out = context.outputs[0].f32() + r * width;
      out[0] = static_cast<float>(1.0 / (1.0 + std::exp(double(in[0]))));
      // π: softmax of π̂·(1 + b) over the M weights.
      const float* pi_hat = in + 1;
      double top = -HUGE_VAL;
      for (size_t j = 0; j < m_; ++j) top = std::max(top, double(pi_hat[j]) * (1.0 + b));
      double total = 0.0;
      for (size_t j = 0; j < m_; ++j) total += std::exp(double(pi_hat[j]) * (1.0 + b) - top);
      // In place, out[1 + j] is pi_hat[j]: each is read before it is written.
      for (size_t j = 0; j < m_; ++j)
        out[1 + j] = static_cast<float>(std::exp(double(pi_hat[j]) * (1.0 + b) - top) / total);
      for (size_t j = 0; j < 2 * m_; ++j) out[1 + m_ + j] = in[1 + m_ + j];  // μ1, μ2
      for (size_t j = 0; j < 2 * m_; ++j)                                    // σ1, σ2
        out[1 + 3 * m_ + j] = static_cast<float>(std::exp(double(in[1 + 3 * m_ + j]) - b));
      for (size_t j = 0; j < m_; ++j)
        out[1 + 5 * m_ + j] = static_cast<float>(std::tanh(double(in[1 + 5 * m_ + j])));
    }
    return Status::ok();
  }

 private:
  size_t m_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_mixture_density(const OpBuildContext& context) {
  NORMRT_ASSIGN_OR_RETURN(size_t m, check_mixture_density(context.graph, context.node, nullptr));
  return std::unique_ptr<OpKernel>(new MixtureDensityOp(m, node_label(context.node)));
}

}  // namespace

const OpSchema kMixtureDensitySchema = {OpType::kMixtureDensity, "MixtureDensity",      1, 2, 1, 1,
                                        infer_mixture_density,   create_mixture_density};

}  // namespace normrt
