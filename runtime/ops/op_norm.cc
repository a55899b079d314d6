// LayerNorm, RmsNorm, PRmsNorm over the last axis (kernels/norm/norm.h):
//   (x [.., n] f32, gain [n]?, bias [n]?, residual [same as x]?) → (y [same as x], sum?)
// With a residual, s = x + residual is normalized and, if the second output is
// present, written to sum (the pre-norm residual stream). The convention comes
// from the attributes (runtime/graph/norm_attributes.h).
// Aliasing: y may be x or residual; sum may be x or residual; y and sum differ.
//
// With attribute axes = "spatial" (runtime/graph/norm_attributes.h), per channel over
// H×W (kernels/norm/norm_spatial.h):
//   (x [N, C, H, W] f32, gain [C]?, bias [C]?) → y [N, C, H, W]
// no residual, no sum; y may be x. The channels are split over the session's
// thread pool.
#include <memory>
#include <string>

#include "kernels/norm/norm.h"
#include "kernels/norm/norm_spatial.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/spatial_norm_run.h"

namespace normrt {
namespace {

// The spatial form's operand checks; x is present and f32.
Status check_spatial_operands(const Graph& graph, const Node& node, const NormParams& params,
                              const Tensor& x) {
  const Shape& shape = x.shape;
  bool fixed = shape.size() == 4;
  for (int64_t d : shape) fixed = fixed && d >= 1;
  if (!fixed) {
    return node_error(node, "operand 0 (x) '" + x.name +
                                "' must be NCHW [N, C, H, W] with fixed sizes >= 1 for axes "
                                "\"spatial\", found " +
                                shape_string(shape));
  }
  const int64_t channels = shape[1];
  const Tensor* gain = input_tensor(graph, node, 1);
  const Tensor* bias = input_tensor(graph, node, 2);
  Status s = Status::ok();
  if (gain != nullptr && !(s = check_f32_vector(node, 1, "gain", *gain, channels))) return s;
  if (bias != nullptr && !(s = check_f32_vector(node, 2, "bias", *bias, channels))) return s;
  if (input_tensor(graph, node, 3) != nullptr || output_tensor(graph, node, 1) != nullptr) {
    return node_error(node, "axes \"spatial\" takes no residual (operand 3) and no sum (output 1)");
  }
  // The kernel's own parameter checks (eps, p with H·W, gain convention).
  const auto plane = static_cast<size_t>(shape[2] * shape[3]);
  if (Status valid = norm_params_validate(params, plane, gain != nullptr); !valid) {
    return node_error(node, "norm_spatial: " + valid.message().substr(sizeof("norm: ") - 1));
  }
  return Status::ok();
}

struct NormNodeConfig {
  NormParams params;
  NormAxes axes = NormAxes::kLast;
};

// Checks everything, and returns the parameters create() needs.
Expected<NormNodeConfig> check_norm_node(const Graph& graph, const Node& node, NormKind kind,
                                         std::vector<InferredTensor>& outputs) {
  std::vector<std::string_view> names = kNormConventionAttributeNames;
  names.push_back("axes");
  if (kind == NormKind::kPRmsNorm) names.push_back("p");
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, names));
  NORMRT_ASSIGN_OR_RETURN(NormParams params, norm_params_from_attributes(node, kind));
  NORMRT_ASSIGN_OR_RETURN(NormAxes axes, norm_axes_from_attributes(node));
  if (axes == NormAxes::kSpatial) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
    Status s = check_dtype(node, 0, "x", *x, {DataType::kF32});
    if (s) s = check_spatial_operands(graph, node, params, *x);
    if (!s) return s;
    outputs.assign(node.outputs.size(), {DataType::kF32, x->shape});
    return NormNodeConfig{params, axes};
  }

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
  // The kernel's own parameter checks (eps, p with n, gain convention).
  if (Status valid = norm_params_validate(params, static_cast<size_t>(n), gain != nullptr); !valid)
    return node_error(node, valid.message());

  outputs.assign(node.outputs.size(), {DataType::kF32, x->shape});
  return NormNodeConfig{params, axes};
}

template <NormKind kKind>
Status infer_norm(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_norm_node(graph, node, kKind, outputs).status();
}

class SpatialNormOp final : public OpKernel {
 public:
  SpatialNormOp(NormParams params, NormSpatialKernel kernel) : params_(params), kernel_(kernel) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    NormPlanes planes;
    planes.images = x.dims[0];
    planes.channels = x.dims[1];
    planes.plane = x.dims[2] * x.dims[3];
    planes.src = x.f32();
    planes.dst = context.outputs[0].f32();
    planes.gain = optional_input_f32(context, 1);
    planes.bias = optional_input_f32(context, 2);
    run_spatial_norm(kernel_, params_, planes, context.pool);
    return Status::ok();
  }

 private:
  NormParams params_;
  NormSpatialKernel kernel_;
};

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
  NORMRT_ASSIGN_OR_RETURN(NormNodeConfig config,
                          check_norm_node(context.graph, context.node, kKind, outputs));
  NORMRT_RETURN_IF_ERROR(check_build_isa(context));
  if (config.axes == NormAxes::kSpatial) {
    NormSpatialKernel kernel = norm_spatial_kernel_for(context.isa);
    if (kernel == nullptr) {
      return node_error(context.node, std::string("no spatial norm kernel compiled for ") +
                                          isa_name(context.isa));
    }
    return std::unique_ptr<OpKernel>(new SpatialNormOp(config.params, kernel));
  }
  NormKernel kernel = norm_kernel_for(context.isa);
  if (kernel == nullptr) {
    return node_error(context.node,
                      std::string("no norm kernel compiled for ") + isa_name(context.isa));
  }
  return std::unique_ptr<OpKernel>(new NormOp(config.params, kernel, node_label(context.node)));
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
                                  infer_norm<NormKind::kPRmsNorm>,
                                  create_norm<NormKind::kPRmsNorm>};

}  // namespace normrt
