// Rope: rotary position embedding (Su et al., RoFormer) of the rows of
// x [S, H·d] at absolute positions position + i (docs/ops_sequence.md).
//
//   attrs  num_heads (required), theta (10000), rotary_dim (d; even, ≤ d),
//          style "half" (Hugging Face Llama's rotate_half: pairs (j, j + rd/2))
//          or "interleaved" (GPT-J / Meta: pairs (2j, 2j + 1))
//   pair j of each head at position p turns by the angle p·inv_freq_j,
//          inv_freq_j = theta^(−2j/rd):  (a, b) → (a·cos − b·sin, b·cos + a·sin);
//          columns [rd, d) of each head are copied unchanged.
//   out == x (in place) is allowed; other overlap is not.
//
// Numerics follow Hugging Face's float32 path: inv_freq_j is theta^(−2j/rd)
// evaluated in double and rounded to float (HF's float32 pow: within ~1 ulp),
// the angle is float(p)·inv_freq_j rounded to float as HF's float32 product
// (so large positions lose the same angle precision), and cos/sin of that
// float angle are float functions (glibc's and PyTorch's: ≤ 1 ulp), once per
// row and pair, shared by the heads.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/rnn_op_operands.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum class RopeStyle { kHalf, kInterleaved };

struct RopeConfig {
  size_t heads = 0, head_dim = 0, rotary_dim = 0;
  double theta = 10000.0;
  RopeStyle style = RopeStyle::kHalf;
};

Status check_rope(const Graph& graph, const Node& node, RopeConfig& config, Shape& out_shape) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(c.check_attribute_names({"num_heads", "theta", "rotary_dim", "style"}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, c.input(0, "x"));
  NORMRT_RETURN_IF_ERROR(c.check_type(*x, "x", {DataType::kF32}, 2));
  if (x->shape[0] == 0) return c.error(NodeChecker::describe(*x, "x") + " has no rows");
  NORMRT_ASSIGN_OR_RETURN(int64_t heads, c.required_int("num_heads", 1, INT32_MAX));
  const int64_t cols = x->shape[1];
  if (cols <= 0 || cols % heads != 0 || cols / heads < 2) {
    return c.error(NodeChecker::describe(*x, "x") + " has " + shape_string(x->shape) +
                   ": its columns must be num_heads (" + std::to_string(heads) +
                   ") · d with d ≥ 2");
  }
  const int64_t d = cols / heads;
  NORMRT_ASSIGN_OR_RETURN(int64_t rotary_dim, c.int_in_range("rotary_dim", d, 2, d));
  if (rotary_dim % 2 != 0) {
    return c.error("attribute 'rotary_dim' must be even, found " + std::to_string(rotary_dim));
  }
  NORMRT_ASSIGN_OR_RETURN(double theta, c.finite_float("theta", 10000.0));
  if (!(theta > 0.0)) {
    return c.error("attribute 'theta' must be > 0, found " + std::to_string(theta));
  }
  NORMRT_ASSIGN_OR_RETURN(size_t style, c.choice("style", 0, {"half", "interleaved"}));
  config.heads = static_cast<size_t>(heads);
  config.head_dim = static_cast<size_t>(d);
  config.rotary_dim = static_cast<size_t>(rotary_dim);
  config.theta = theta;
  config.style = style == 0 ? RopeStyle::kHalf : RopeStyle::kInterleaved;
  out_shape = x->shape;
  return Status::ok();
}

Status infer_rope(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  RopeConfig config;
  Shape out_shape;
  NORMRT_RETURN_IF_ERROR(check_rope(graph, node, config, out_shape));
  outputs.assign(1, InferredTensor{DataType::kF32, out_shape});
  return Status::ok();
}

class RopeKernel final : public OpKernel {
 public:
  explicit RopeKernel(const RopeConfig& config) : config_(config) {
    const size_t pairs = config.rotary_dim / 2;
    inv_freq_.resize(pairs);
    for (size_t j = 0; j < pairs; ++j) {
      const double exponent =
          -2.0 * static_cast<double>(j) / static_cast<double>(config.rotary_dim);
      inv_freq_[j] = static_cast<float>(std::pow(config.theta, exponent));
    }
  }

  // cos and sin of one row's angles: (rd/2) floats each.
  size_t workspace_bytes() const override { return config_.rotary_dim * sizeof(float); }

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const TensorView& out = context.outputs[0];
    const size_t pairs = config_.rotary_dim / 2, cols = x.cols();
    float* cosines = reinterpret_cast<float*>(context.workspace);
    float* sines = cosines + pairs;
    for (size_t i = 0; i < x.rows(); ++i) {
      const float position = static_cast<float>(context.position + i);
      for (size_t j = 0; j < pairs; ++j) {
        const float angle = position * inv_freq_[j];
        cosines[j] = std::cos(angle);
        sines[j] = std::sin(angle);
      }
      for (size_t h = 0; h < config_.heads; ++h) {
        const size_t offset = i * cols + h * config_.head_dim;
        rotate_head(x.f32() + offset, out.f32() + offset, cosines, sines);
      }
    }
    return Status::ok();
  }

 private:
  // One head's d values; src == dst allowed (each pair is read before written).
  void rotate_head(const float* src, float* dst, const float* cosines, const float* sines) const {
    const size_t pairs = config_.rotary_dim / 2;
    const size_t stride = config_.style == RopeStyle::kHalf ? 1 : 2;
    const size_t partner = config_.style == RopeStyle::kHalf ? pairs : 1;
    for (size_t j = 0; j < pairs; ++j) {
      const size_t first = j * stride, second = first + partner;
      const float a = src[first], b = src[second];
      dst[first] = a * cosines[j] - b * sines[j];
      dst[second] = b * cosines[j] + a * sines[j];
    }
    if (dst != src) {
      for (size_t e = config_.rotary_dim; e < config_.head_dim; ++e) dst[e] = src[e];
    }
  }

  RopeConfig config_;
  std::vector<float> inv_freq_;  // (rd/2)
};

Expected<std::unique_ptr<OpKernel>> create_rope(const OpBuildContext& context) {
  RopeConfig config;
  Shape out_shape;
  NORMRT_RETURN_IF_ERROR(check_rope(context.graph, context.node, config, out_shape));
  return std::unique_ptr<OpKernel>(new RopeKernel(config));
}

}  // namespace

const OpSchema kRopeSchema = {OpType::kRope, "Rope", 1, 1, 1, 1, infer_rope, create_rope};

}  // namespace normrt
