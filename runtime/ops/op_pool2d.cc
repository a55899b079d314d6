// Pooling over NCHW images.
//   MaxPool2d     (x [N, C, H, W] f32) → [N, C, OH, OW]   oneDNN pooling_max
//   AvgPool2d     same; "count_include_pad" (int 0/1, default 1: PyTorch's
//                 default, padding counts as zeros in the mean)
//     attributes: kernel [kh, kw] (required), strides [sh, sw] (default the
//     kernel), pads [top, left, bottom, right] (default 0, each at most half
//     the kernel); output sizes floored (kernels/conv/pool_onednn.h)
//   GlobalAvgPool (x [N, C, H, W] f32) → [N, C]: the mean of each H×W plane,
//                 summed in double (Lasagne's GlobalAvgLayer, T.mean over (2, 3))
// N, C, H, W fixed (no S). Aliasing: y must not overlap x.
#include <memory>
#include <string>
#include <utility>

#include "kernels/conv/pool_onednn.h"
#include "runtime/ops/onednn_session_state.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"
#include "runtime/ops/window_attributes.h"

namespace normrt {
namespace {

Status check_nchw_input(const Graph& graph, const Node& node, const Tensor** x) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* input, required_input(graph, node, 0, "x"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "x", *input, {DataType::kF32}));
  bool fixed = input->shape.size() == 4;
  for (int64_t d : input->shape) fixed = fixed && d >= 1;
  if (!fixed) {
    return node_error(node, "operand 0 (x) '" + input->name +
                                "' must be NCHW [N, C, H, W] with fixed sizes >= 1, found " +
                                shape_string(input->shape));
  }
  *x = input;
  return Status::ok();
}

// A pair or quadruple of non-negative ints, every one ≥ `min`.
Expected<std::vector<int64_t>> sizes_attribute(const Node& node, const char* name, size_t count,
                                               int64_t min, std::vector<int64_t> fallback,
                                               const char* form) {
  Expected<std::vector<int64_t>> values = int_list_attribute(node, name, std::move(fallback));
  if (!values) return values.status();
  bool ok = values->size() == count;
  for (int64_t v : *values) ok = ok && v >= min;
  if (!ok) {
    return node_error(node, std::string("attribute '") + name + "' must be " + form +
                                " with every value >= " + std::to_string(min));
  }
  return values;
}

struct PoolConfig {
  Pool2dShape shape;
  PoolKind kind = PoolKind::kMax;
};

template <OpType kOp>
Expected<PoolConfig> check_pool_node(const Graph& graph, const Node& node,
                                     std::vector<InferredTensor>& outputs) {
  const bool average = kOp == OpType::kAvgPool2d;
  Status s = average
                 ? check_attribute_names(node, {"kernel", "strides", "pads", "count_include_pad"})
                 : check_attribute_names(node, {"kernel", "strides", "pads"});
  if (!s) return s;
  PoolConfig config;
  if (average) {
    NORMRT_ASSIGN_OR_RETURN(int64_t include, node.int_attribute("count_include_pad", 1));
    if (include != 0 && include != 1) {
      return node_error(
          node, "attribute 'count_include_pad' must be 0 or 1, found " + std::to_string(include));
    }
    config.kind = include ? PoolKind::kAvgIncludePad : PoolKind::kAvgExcludePad;
  }
  if (node.find_attribute("kernel") == nullptr) {
    return node_error(node, "attribute 'kernel' ([kh, kw]) is required");
  }
  NORMRT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel,
                          sizes_attribute(node, "kernel", 2, 1, {}, "[kh, kw]"));
  NORMRT_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                          sizes_attribute(node, "strides", 2, 1, kernel, "[sh, sw]"));
  NORMRT_ASSIGN_OR_RETURN(
      std::vector<int64_t> pads,
      sizes_attribute(node, "pads", 4, 0, {0, 0, 0, 0}, "[top, left, bottom, right]"));
  const Tensor* x = nullptr;
  if (s = check_nchw_input(graph, node, &x); !s) return s;
  Pool2dShape& shape = config.shape;
  shape.batch = static_cast<size_t>(x->shape[0]);
  shape.channels = static_cast<size_t>(x->shape[1]);
  shape.height = static_cast<size_t>(x->shape[2]);
  shape.width = static_cast<size_t>(x->shape[3]);
  shape.kernel_h = static_cast<size_t>(kernel[0]);
  shape.kernel_w = static_cast<size_t>(kernel[1]);
  set_strides_and_pads(shape, strides, pads);
  if (Status valid = pool2d_validate_shape(shape); !valid) {
    return node_error(node, valid.message());
  }
  outputs = {{DataType::kF32,
              {x->shape[0], x->shape[1], static_cast<int64_t>(shape.out_height()),
               static_cast<int64_t>(shape.out_width())}}};
  return config;
}

template <OpType kOp>
Status infer_pool(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_pool_node<kOp>(graph, node, outputs).status();
}

using PoolSessionState = OneDnnSessionState<OneDnnPool2d>;

class Pool2dOp final : public OpKernel {
 public:
  Pool2dOp(std::unique_ptr<OneDnnPool2d> pool, std::string label)
      : pool_(std::move(pool)), label_(std::move(label)) {}

  std::unique_ptr<OpSessionState> create_session_state() const override {
    auto state = std::make_unique<PoolSessionState>();
    state->make_context(*pool_);
    return state;
  }

  Status run(const OpRunContext& context) const override {
    NORMRT_ASSIGN_OR_RETURN(PoolSessionState * state,
                            prepared_onednn_state<PoolSessionState>(context, label_));
    Status s = pool_->run(*state->context, context.inputs[0].f32(), context.outputs[0].f32());
    return s ? s : Status::error(label_ + ": " + s.message());
  }

 private:
  std::unique_ptr<OneDnnPool2d> pool_;  // one thread: pooling is a small share of a CNN
  std::string label_;
};

template <OpType kOp>
Expected<std::unique_ptr<OpKernel>> create_pool(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(PoolConfig config,
                          check_pool_node<kOp>(context.graph, context.node, outputs));
  Expected<std::unique_ptr<OneDnnPool2d>> pool = OneDnnPool2d::create(config.shape, config.kind, 1);
  if (!pool) return node_error(context.node, pool.status().message());
  return std::unique_ptr<OpKernel>(new Pool2dOp(std::move(pool).value(), node_label(context.node)));
}

Status infer_global_avg_pool(const Graph& graph, const Node& node,
                             std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {}));
  const Tensor* x = nullptr;
  NORMRT_RETURN_IF_ERROR(check_nchw_input(graph, node, &x));
  outputs = {{DataType::kF32, {x->shape[0], x->shape[1]}}};
  return Status::ok();
}

// A plain loop: the planes are small (6×6 in ConvPool-CNN-C) and the sum in
// double keeps the mean exact to float rounding whatever the plane size.
class GlobalAvgPoolOp final : public OpKernel {
 public:
  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const size_t planes = x.dims[0] * x.dims[1], plane = x.dims[2] * x.dims[3];
    const float* src = x.f32();
    float* y = context.outputs[0].f32();
    for (size_t p = 0; p < planes; ++p) {
      double sum = 0.0;
      for (size_t i = 0; i < plane; ++i) sum += src[p * plane + i];
      y[p] = static_cast<float>(sum / static_cast<double>(plane));
    }
    return Status::ok();
  }
};

Expected<std::unique_ptr<OpKernel>> create_global_avg_pool(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_RETURN_IF_ERROR(infer_global_avg_pool(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new GlobalAvgPoolOp());
}

}  // namespace

const OpSchema kMaxPool2dSchema = {OpType::kMaxPool2d,
                                   "MaxPool2d",
                                   1,
                                   1,
                                   1,
                                   1,
                                   infer_pool<OpType::kMaxPool2d>,
                                   create_pool<OpType::kMaxPool2d>};
const OpSchema kAvgPool2dSchema = {OpType::kAvgPool2d,
                                   "AvgPool2d",
                                   1,
                                   1,
                                   1,
                                   1,
                                   infer_pool<OpType::kAvgPool2d>,
                                   create_pool<OpType::kAvgPool2d>};
const OpSchema kGlobalAvgPoolSchema = {OpType::kGlobalAvgPool, "GlobalAvgPool",       1, 1, 1, 1,
                                       infer_global_avg_pool,  create_global_avg_pool};

}  // namespace normrt
