// GruRecurrenceCho: the recurrent half of a GRU in Cho et al.'s convention
// (gate order r, u; h = u⊙h_prev + (1 − u)⊙h̃), run over R rows of input
// projections the graph computed beforehand (Linear → norm, any norm, in the
// projections' own column order). Nematus' gru_layer and the two halves of
// its gru_cond_layer are this op after their input projections
// (docs/ops_sequence.md, docs/rnnsearch.md).
//
//   inputs   xg [R, 2H] (gates r, u from x), xc [R, H] (candidate from x),
//            h0? [1, H] (absent: zeros), w_g [2H, H], w_c [H, H] (weights,
//            f32 or bf16, [N, K] as Linear), bias_g? [2H], gain_g? [2H],
//            norm_bias_g? [2H], bias_c? [H], gain_c? [H], norm_bias_c? [H]
//            (f32); R is S or fixed
//   outputs  h_seq [R, H], h_last? [1, H]
//   attrs    the norm attributes (runtime/graph/norm_attributes.h; "none": no norm,
//            gains and norm biases rejected), reverse 0/1
//
//   g   = N(w_g·h_{t−1} + bias_g; gain_g, norm_bias_g) + xg_t
//   r   = σ(g[0, H)),  u = σ(g[H, 2H))
//   h̃  = tanh(r ⊙ N(w_c·h_{t−1} + bias_c; gain_c, norm_bias_c) + xc_t)
//   h_t = u ⊙ h_{t−1} + (1 − u) ⊙ h̃
//
// N normalizes the whole 2H (or H) row — pRMSNorm's statistic is its first
// ⌊p·n⌋ columns in this order. reverse = 1 consumes rows R−1, ..., 0:
// h_seq[t] is the state after rows t..R−1 and h_last = h_seq[0].
// Aliasing: h_last may be h0; nothing else may overlap.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "kernels/activation/activation.h"
#include "kernels/linear/fused_linear.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_linear_weights.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/rnn_op_operands.h"
#include "runtime/ops/rnn_op_weights.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum Input : size_t {
  kXg,
  kXc,
  kH0,
  kWg,
  kWc,
  kBiasG,
  kGainG,
  kNormBiasG,
  kBiasC,
  kGainC,
  kNormBiasC,
  kInputCount
};
enum Output : size_t { kHSeq, kHLast };

struct RecurrenceConfig {
  size_t hidden = 0;
  bool reverse = false;
  NormSelection norm;
};

// An optional f32 vector operand of n elements (any kind).
Status check_optional_vector(const NodeChecker& c, size_t index, const char* what, int64_t n) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* tensor, c.optional_input(index, what));
  if (tensor == nullptr) return Status::ok();
  NORMRT_RETURN_IF_ERROR(c.check_type(*tensor, what, {DataType::kF32}, 1));
  return c.check_shape(*tensor, what, {n});
}

// The kernel's own checks of the convention for a row of n (eps, ⌊p·n⌋ ≥ 1).
Status check_norm_for_width(const NodeChecker& c, const NormSelection& norm, size_t n,
                            bool has_gain) {
  if (!norm.enabled) return Status::ok();
  if (Status s = norm_params_validate(norm.params, n, has_gain); !s)
    return c.error("rows of " + std::to_string(n) + ": " + s.message());
  return Status::ok();
}

Status check_recurrence(const Graph& graph, const Node& node, RecurrenceConfig& config,
                        std::vector<InferredTensor>* outputs) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(
      c.check_attribute_names({"norm", "eps", "eps_placement", "gain_convention", "p", "reverse"}));
  NORMRT_ASSIGN_OR_RETURN(bool reverse, c.flag("reverse", false));
  config.reverse = reverse;
  NORMRT_ASSIGN_OR_RETURN(NormSelection norm, norm_selection_from_attributes(node));
  config.norm = norm;

  NORMRT_ASSIGN_OR_RETURN(const Tensor* w_c, c.input(kWc, "w_c"));
  NORMRT_RETURN_IF_ERROR(
      c.check_type(*w_c, "w_c", {DataType::kF32, DataType::kBF16, DataType::kInt8}, 2));
  const int64_t h = w_c->shape[1];
  if (h < 1) return c.error(NodeChecker::describe(*w_c, "w_c") + " must be [H, H] with H >= 1");
  config.hidden = static_cast<size_t>(h);
  NORMRT_RETURN_IF_ERROR(seq_op::check_weight(c, *w_c, "w_c (H · H)", {h, h}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* w_g, c.input(kWg, "w_g"));
  NORMRT_RETURN_IF_ERROR(seq_op::check_weight(c, *w_g, "w_g (2H · H, H from w_c)", {2 * h, h}));

  NORMRT_ASSIGN_OR_RETURN(const Tensor* xg, c.input(kXg, "xg"));
  NORMRT_RETURN_IF_ERROR(c.check_type(*xg, "xg", {DataType::kF32}, 2));
  const int64_t rows = xg->shape[0];
  NORMRT_RETURN_IF_ERROR(c.check_shape(*xg, "xg (R · 2H)", {rows, 2 * h}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* xc, c.input(kXc, "xc"));
  NORMRT_RETURN_IF_ERROR(c.check_type(*xc, "xc", {DataType::kF32}, 2));
  NORMRT_RETURN_IF_ERROR(c.check_shape(*xc, "xc (R · H, R from xg)", {rows, h}));
  if (rows == 0) return c.error(NodeChecker::describe(*xg, "xg") + " has no rows");

  NORMRT_ASSIGN_OR_RETURN(const Tensor* h0, c.optional_input(kH0, "h0"));
  if (h0 != nullptr) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_state_vector(c, *h0, "h0", h));
  }
  const struct {
    Input index;
    const char* what;
    int64_t n;
    bool norm_only;
  } vectors[] = {{kBiasG, "bias_g", 2 * h, false},
                 {kGainG, "gain_g", 2 * h, true},
                 {kNormBiasG, "norm_bias_g", 2 * h, true},
                 {kBiasC, "bias_c", h, false},
                 {kGainC, "gain_c", h, true},
                 {kNormBiasC, "norm_bias_c", h, true}};
  for (const auto& v : vectors) {
    NORMRT_RETURN_IF_ERROR(check_optional_vector(c, v.index, v.what, v.n));
    if (v.norm_only && !config.norm.enabled && input_tensor(graph, node, v.index) != nullptr)
      return c.error(std::string(v.what) + " needs a norm, but attribute 'norm' is \"none\"");
  }
  const bool gain_g = input_tensor(graph, node, kGainG) != nullptr;
  const bool gain_c = input_tensor(graph, node, kGainC) != nullptr;
  NORMRT_RETURN_IF_ERROR(check_norm_for_width(c, config.norm, 2 * config.hidden, gain_g));
  NORMRT_RETURN_IF_ERROR(check_norm_for_width(c, config.norm, config.hidden, gain_c));
  if (outputs != nullptr) {
    outputs->assign(node.outputs.size(), {DataType::kF32, {1, h}});
    (*outputs)[kHSeq].shape = {rows, h};
  }
  return Status::ok();
}

Status infer_recurrence(const Graph& graph, const Node& node,
                        std::vector<InferredTensor>& outputs) {
  RecurrenceConfig config;
  return check_recurrence(graph, node, config, &outputs);
}

class GruRecurrenceOp final : public OpKernel {
 public:
  GruRecurrenceOp(PackedWeights w_g, PackedWeights w_c, RecurrenceConfig config,
                  ActivationKernel activation, std::string label)
      : w_g_(std::move(w_g)),
        w_c_(std::move(w_c)),
        config_(config),
        activation_(activation),
        label_(std::move(label)) {}

  size_t weight_copy_bytes() const override {
    return (w_g_.borrowed() ? 0 : w_g_.size_bytes()) + (w_c_.borrowed() ? 0 : w_c_.size_bytes());
  }
  // g [2H], c [H], zeros [H].
  size_t workspace_bytes() const override { return 4 * config_.hidden * sizeof(float); }

  Status run(const OpRunContext& context) const override {
    const size_t h = config_.hidden, rows = context.inputs[kXg].dims[0];
    float* g = reinterpret_cast<float*>(context.workspace);
    float* c = g + 2 * h;
    float* zeros = c + h;
    std::fill(zeros, zeros + h, 0.0f);
    LinearEpilogue gates, candidate;
    gates.bias = optional_input_f32(context, kBiasG);
    candidate.bias = optional_input_f32(context, kBiasC);
    gates.normalize = candidate.normalize = config_.norm.enabled;
    gates.norm = candidate.norm = config_.norm.params;
    gates.gain = optional_input_f32(context, kGainG);
    gates.norm_bias = optional_input_f32(context, kNormBiasG);
    candidate.gain = optional_input_f32(context, kGainC);
    candidate.norm_bias = optional_input_f32(context, kNormBiasC);

    const float* xg = context.inputs[kXg].f32();
    const float* xc = context.inputs[kXc].f32();
    const float* h0 = optional_input_f32(context, kH0);
    const float* h_prev = h0 != nullptr ? h0 : zeros;
    float* h_seq = context.outputs[kHSeq].f32();
    for (size_t i = 0; i < rows; ++i) {
      const size_t t = config_.reverse ? rows - 1 - i : i;
      // Validated when the node was built; debug builds check again.
      Status s = fused_linear_unchecked(w_g_, h_prev, 1, h, gates, g, 2 * h, context.pool);
      if (s) s = fused_linear_unchecked(w_c_, h_prev, 1, h, candidate, c, h, context.pool);
      if (!s) return Status::error(label_ + ": " + s.message());  // a plan bug, not bad data
      const float* xg_t = xg + t * 2 * h;
      const float* xc_t = xc + t * h;
      for (size_t j = 0; j < 2 * h; ++j) g[j] += xg_t[j];
      activation_(Activation::kSigmoid, 0.0f, g, g, 2 * h);  // r = g[0, H), u = g[H, 2H)
      for (size_t j = 0; j < h; ++j) c[j] = g[j] * c[j] + xc_t[j];
      activation_(Activation::kTanh, 0.0f, c, c, h);
      float* h_t = h_seq + t * h;
      const float* u = g + h;
      for (size_t j = 0; j < h; ++j) h_t[j] = u[j] * h_prev[j] + (1.0f - u[j]) * c[j];
      h_prev = h_t;
    }
    if (float* h_last = optional_output_f32(context, kHLast)) std::copy(h_prev, h_prev + h, h_last);
    return Status::ok();
  }

 private:
  PackedWeights w_g_, w_c_;
  RecurrenceConfig config_;
  ActivationKernel activation_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_recurrence(const OpBuildContext& context) {
  RecurrenceConfig config;
  NORMRT_RETURN_IF_ERROR(check_recurrence(context.graph, context.node, config, nullptr));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  ActivationKernel activation = activation_kernel_for(context.isa);
  if (activation == nullptr)
    return node_error(context.node,
                      std::string("no activation kernel compiled for ") + isa_name(context.isa));
  const LinearPackRequest request{context.isa, context.bf16_activations};
  NORMRT_ASSIGN_OR_RETURN(PackedWeights w_g,
                          pack_linear_weight(context.graph, context.node, kWg, request));
  NORMRT_ASSIGN_OR_RETURN(PackedWeights w_c,
                          pack_linear_weight(context.graph, context.node, kWc, request));
  return std::unique_ptr<OpKernel>(new GruRecurrenceOp(std::move(w_g), std::move(w_c), config,
                                                       activation, node_label(context.node)));
}

}  // namespace

const OpSchema kGruRecurrenceChoSchema = {
    OpType::kGruRecurrenceCho, "GruRecurrenceCho", 5, kInputCount, 1, 2,
    infer_recurrence,          create_recurrence};

}  // namespace normrt
