// LayerNorm, RmsNorm, PRmsNorm over the last axis (kernels/norm/norm.h):
//   (x [.., n] f32, gain [n]?, bias [n]?, residual [same as x]?) → (y [same as x], sum?)
// With a residual, s = x + residual is normalized and, if the second output is
// present, written to sum (the pre-norm residual stream). The convention comes
// from the attributes (op_norm_attributes.h).
// Aliasing: y may be x or residual; sum may be x or residual; y and sum differ.
#include <memory>
#include <string>

#include "kernels/norm/norm.h"
#include "runtime/ops/op_norm_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

// Checks everything, and returns the parameters create() needs.
Expected<NormParams> check_norm_node(const Graph& graph, const Node& node, NormKind kind,
                                     std::vector<InferredTensor>& outputs) {
  std::vector<std::string_view> names = kNormConventionAttributeNames;
  if (kind == NormKind::kRmsNormPartial) names.push_back("p");
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, names));
  Expected<NormParams> params = norm_params_from_attributes(node, kind);
  if (!params) return params.status();

  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
  if (s) s = check_rows_operand(node, 0, "x", *x);
  if (!s) return s;
  const int64_t n = x->shape.back();
  const Tensor* gain = input_tensor(graph, node, 1);
  const Tensor* bias = input_tensor(graph, node, 2);
  const Tensor* residual = input_tensor(graph, node, 3);
  if (gain != nullptr && !(s = check_f32_vector(node, 1, "gain", *gain, n))) return s;
  if (bias != nullptr && !(s = check_f32_vector(node, 2, "bias", *bias, n))) return s;
  if (residual != nullptr) {
    s = check_dtype(node, 3, "residual", *residual, {DataType::kF32});
    if (s) s = check_shape(node, 3, "residual", *residual, x->shape);
    if (!s) return s;
  }
  if (output_tensor(graph, node, 1) != nullptr && residual == nullptr) {
    return node_error(node, "output 1 (sum) needs operand 3 (residual): there is nothing to sum");
  }
  // The kernel's own parameter checks (eps, p with n, gain convention), on a
  // call of zero rows: only the parameters and n matter.
  float dummy = 0.0f;
  NormRows rows;
  rows.rows = 0;
  rows.n = static_cast<size_t>(n);
  rows.src = rows.dst = &dummy;
  rows.gain = gain != nullptr ? &dummy : nullptr;
  if (Status valid = norm_validate(*params, rows); !valid) return node_error(node, valid.message());

  outputs.assign(node.outputs.size(), {DataType::kF32, x->shape});
  return params;
}

template <NormKind kKind>
Status infer_norm(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_norm_node(graph, node, kKind, outputs).status();
}

class NormOp final : public OpKernel {
 public:
  NormOp(NormParams params, NormKernel kernel, std::string label)
      : params_(params), kernel_(kernel), label_(std::move(label)) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    NormRows rows;
    rows.rows = x.rows();
    rows.n = x.cols();
    rows.src = x.f32();
    rows.src_stride = rows.n;
    rows.dst = context.outputs[0].f32();
    rows.dst_stride = rows.n;
    rows.gain = optional_input_f32(context, 1);
    rows.bias = optional_input_f32(context, 2);
    rows.residual = optional_input_f32(context, 3);
    rows.residual_stride = rows.n;
    rows.sum_dst = optional_output_f32(context, 1);
    rows.sum_stride = rows.n;
#ifndef NDEBUG
    // The plan's buffers and aliasing were checked at plan time; re-check in debug builds.
    if (Status s = norm_validate(params_, rows); !s)
      return Status::error(label_ + ": " + s.message());
#endif
    kernel_(params_, rows);
    return Status::ok();
  }

 private:
  NormParams params_;
  NormKernel kernel_;
  std::string label_;
};

template <NormKind kKind>
Expected<std::unique_ptr<OpKernel>> create_norm(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(NormParams params,
                          check_norm_node(context.graph, context.node, kKind, outputs));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  NormKernel kernel = norm_kernel_for(context.isa);
  if (kernel == nullptr) {
    return node_error(context.node,
                      std::string("no norm kernel compiled for ") + isa_name(context.isa));
  }
  return std::unique_ptr<OpKernel>(new NormOp(params, kernel, node_label(context.node)));
}

}  // namespace

const OpSchema kLayerNormSchema = {OpType::kLayerNorm,
                                   "LayerNorm",
                                   1,
                                   4,
                                   1,
                                   2,
                                   infer_norm<NormKind::kLayerNorm>,
                                   create_norm<NormKind::kLayerNorm>};
const OpSchema kRmsNormSchema = {OpType::kRmsNorm,
                                 "RmsNorm",
                                 1,
                                 4,
                                 1,
                                 2,
                                 infer_norm<NormKind::kRmsNorm>,
                                 create_norm<NormKind::kRmsNorm>};
const OpSchema kPRmsNormSchema = {OpType::kPRmsNorm,
                                  "PRmsNorm",
                                  1,
                                  4,
                                  1,
                                  2,
                                  infer_norm<NormKind::kRmsNormPartial>,
                                  create_norm<NormKind::kRmsNormPartial>};

}  // namespace normrt
