// Layout ops: exact copies of f32 or i32 data along one axis ("axis", int,
// default −1 = the last; negative counts from the end).
//   Concat (a, b, ...) → y: operands equal except along the axis, whose sizes add up.
//   Split  (x) → (y0, y1, ...): "sizes" (int list, one per output, summing to
//          the axis) or, without it, equal parts by output count. An absent
//          output (kNoTensor) is skipped.
//   Slice  (x) → x[begin:end] along the axis: "begin" (default 0), "end"
//          (default: the whole axis); negative values count from the end.
// Concat and Split need a fixed axis (not S). Slice may cut S only to a length
// that does not depend on S: both bounds from the start with end ≤ 1 ([0, 1):
// the first token) or both from the end with begin ≥ −1 ([−1, end): the last).
// Aliasing: outputs must not overlap inputs.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

// The "axis" attribute resolved against `rank`.
Expected<size_t> axis_attribute(const Node& node, size_t rank) {
  NORMRT_ASSIGN_OR_RETURN(int64_t axis, node.int_attribute("axis", -1));
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    return node_error(node, "attribute 'axis' = " + std::to_string(axis) +
                                " is out of range for rank " + std::to_string(rank) +
                                " (expected " + std::to_string(-r) + " to " +
                                std::to_string(r - 1) + ")");
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

Status check_layout_operand(const Node& node, size_t index, const char* role,
                            const Tensor& tensor) {
  if (tensor.shape.empty()) {
    return node_error(node,
                      operand_name(index, role) + " '" + tensor.name + "' must have rank >= 1");
  }
  return check_dtype(node, index, role, tensor, {DataType::kF32, DataType::kI32});
}

Status fixed_axis(const Node& node, const Tensor& tensor, size_t axis) {
  if (tensor.shape[axis] != kSequenceDim) return Status::ok();
  return node_error(node, "cannot " +
                              std::string(node.op == OpType::kConcat ? "concatenate" : "split") +
                              " along axis " + std::to_string(axis) + " of '" + tensor.name + "' " +
                              shape_string(tensor.shape) + ": it is the sequence length S");
}

// Run-time geometry around the axis of a view: outer × axis_len × inner elements.
size_t outer_elements(const TensorView& view, size_t axis) {
  size_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= view.dims[d];
  return outer;
}
size_t inner_elements(const TensorView& view, size_t axis) {
  size_t inner = 1;
  for (size_t d = axis + 1; d < view.rank; ++d) inner *= view.dims[d];
  return inner;
}

// ---- Concat ----------------------------------------------------------------

Expected<size_t> check_concat_node(const Graph& graph, const Node& node,
                                   std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"axis"}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* first, required_input(graph, node, 0, "a"));
  NORMRT_RETURN_IF_ERROR(check_layout_operand(node, 0, "a", *first));
  Expected<size_t> axis = axis_attribute(node, first->shape.size());
  if (!axis) return axis.status();
  Shape y = first->shape;
  y[*axis] = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* operand, required_input(graph, node, i, "operand"));
    const Tensor& t = *operand;
    NORMRT_RETURN_IF_ERROR(check_layout_operand(node, i, "operand", t));
    Shape expected = y;  // all operands alike except along the axis
    if (t.shape.size() == y.size()) expected[*axis] = t.shape[*axis];
    if (t.dtype != first->dtype || t.shape != expected) {
      std::string wanted =
          std::string(data_type_name(first->dtype)) + " " + shape_string(first->shape);
      return node_error(node, "operand " + std::to_string(i) + " '" + t.name + "' is " +
                                  tensor_type_string(t) + ", but operand 0 is " + wanted +
                                  ": operands must have the same dtype and rank, and equal "
                                  "dims except along axis " +
                                  std::to_string(*axis));
    }
    // Only now is t's rank known to be y's: the axis indexes it.
    NORMRT_RETURN_IF_ERROR(fixed_axis(node, t, *axis));
    y[*axis] += t.shape[*axis];
  }
  outputs = {{first->dtype, y}};
  return axis;
}

Status infer_concat(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_concat_node(graph, node, outputs).status();
}

class ConcatOp final : public OpKernel {
 public:
  explicit ConcatOp(size_t axis) : axis_(axis) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& y = context.outputs[0];
    const size_t outer = outer_elements(y, axis_);
    const size_t element = data_type_size(y.dtype);
    std::byte* dst = y.data;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < context.input_count; ++i) {
        const TensorView& x = context.inputs[i];
        const size_t bytes = x.dims[axis_] * inner_elements(x, axis_) * element;
        std::memcpy(dst, x.data + o * bytes, bytes);
        dst += bytes;
      }
    }
    return Status::ok();
  }

 private:
  size_t axis_;
};

Expected<std::unique_ptr<OpKernel>> create_concat(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(size_t axis, check_concat_node(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new ConcatOp(axis));
}

// ---- Split -----------------------------------------------------------------

Expected<size_t> check_split_node(const Graph& graph, const Node& node,
                                  std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"axis", "sizes"}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  NORMRT_RETURN_IF_ERROR(check_layout_operand(node, 0, "x", *x));
  Expected<size_t> axis = axis_attribute(node, x->shape.size());
  if (!axis) return axis.status();
  NORMRT_RETURN_IF_ERROR(fixed_axis(node, *x, *axis));
  const int64_t length = x->shape[*axis];
  const size_t parts = node.outputs.size();
  NORMRT_ASSIGN_OR_RETURN(std::vector<int64_t> listed, int_list_attribute(node, "sizes", {}));
  std::vector<int64_t> sizes = listed;
  if (node.find_attribute("sizes") == nullptr) {
    if (length % static_cast<int64_t>(parts) != 0) {
      return node_error(node, "axis " + std::to_string(*axis) + " of '" + x->name + "' " +
                                  shape_string(x->shape) + " has " + std::to_string(length) +
                                  " elements, not divisible into " + std::to_string(parts) +
                                  " equal outputs (set attribute 'sizes')");
    }
    sizes.assign(parts, length / static_cast<int64_t>(parts));
  }
  int64_t total = 0;
  bool valid = sizes.size() == parts;
  for (int64_t size : sizes) {
    valid = valid && size >= 0 && size <= length;
    total += valid ? size : 0;
  }
  if (!valid || total != length) {
    std::string list;
    for (int64_t size : sizes) list += (list.empty() ? "" : ", ") + std::to_string(size);
    return node_error(node, "attribute 'sizes' [" + list +
                                "] must have one size >= 0 per output (" + std::to_string(parts) +
                                ") summing to " + std::to_string(length) + " (axis " +
                                std::to_string(*axis) + " of " + shape_string(x->shape) + ")");
  }
  outputs.clear();
  for (int64_t size : sizes) {
    Shape y = x->shape;
    y[*axis] = size;
    outputs.push_back({x->dtype, y});
  }
  return axis;
}

Status infer_split(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_split_node(graph, node, outputs).status();
}

class SplitOp final : public OpKernel {
 public:
  SplitOp(size_t axis, std::vector<size_t> sizes) : axis_(axis), sizes_(std::move(sizes)) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    const size_t outer = outer_elements(x, axis_);
    const size_t slab = inner_elements(x, axis_) * data_type_size(x.dtype);  // bytes per axis step
    const size_t row_bytes = x.dims[axis_] * slab;
    size_t offset = 0;  // bytes into each outer row of x
    for (size_t i = 0; i < context.output_count; ++i) {
      const TensorView& y = context.outputs[i];
      const size_t bytes = sizes_[i] * slab;  // an absent output's share is skipped
      if (y.present()) {
        for (size_t o = 0; o < outer; ++o) {
          std::memcpy(y.data + o * bytes, x.data + o * row_bytes + offset, bytes);
        }
      }
      offset += bytes;
    }
    return Status::ok();
  }

 private:
  size_t axis_;
  std::vector<size_t> sizes_;  // per output, along the axis
};

Expected<std::unique_ptr<OpKernel>> create_split(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(size_t axis, check_split_node(context.graph, context.node, outputs));
  std::vector<size_t> sizes;
  for (const InferredTensor& y : outputs) sizes.push_back(static_cast<size_t>(y.shape[axis]));
  return std::unique_ptr<OpKernel>(new SplitOp(axis, std::move(sizes)));
}

// ---- Slice -----------------------------------------------------------------

// A slice bound: `offset` from the start of the axis, or from its end.
struct SliceBound {
  bool from_end = false;
  int64_t offset = 0;
};

struct SliceConfig {
  size_t axis = 0;
  SliceBound begin;
  int64_t length = 0;
  bool first_token = false;  // rows [0, 1) of S: each sequence's first row in a batch
};

Expected<SliceConfig> check_slice_node(const Graph& graph, const Node& node,
                                       std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"axis", "begin", "end"}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, required_input(graph, node, 0, "x"));
  NORMRT_RETURN_IF_ERROR(check_layout_operand(node, 0, "x", *x));
  SliceConfig config;
  NORMRT_ASSIGN_OR_RETURN(size_t axis, axis_attribute(node, x->shape.size()));
  config.axis = axis;
  NORMRT_ASSIGN_OR_RETURN(int64_t begin, node.int_attribute("begin", 0));
  NORMRT_ASSIGN_OR_RETURN(int64_t end, node.int_attribute("end", 0));
  const bool has_end = node.find_attribute("end") != nullptr;
  const SliceBound b{begin < 0, begin};
  const SliceBound e = has_end ? SliceBound{end < 0, end} : SliceBound{true, 0};
  const std::string bounds = "slice [" + std::to_string(begin) + ", " +
                             (has_end ? std::to_string(end) : std::string("end")) +
                             ") along axis " + std::to_string(axis) + " of '" + x->name + "' " +
                             shape_string(x->shape);
  const int64_t dim = x->shape[axis];
  if (dim != kSequenceDim) {
    const int64_t first = b.from_end ? dim + b.offset : b.offset;
    const int64_t last = e.from_end ? dim + e.offset : e.offset;
    if (!(0 <= first && first <= last && last <= dim)) {
      return node_error(node, bounds + " resolves to [" + std::to_string(first) + ", " +
                                  std::to_string(last) + "), not within [0, " +
                                  std::to_string(dim) + "] in order");
    }
    config.begin = {false, first};
    config.length = last - first;
  } else {
    // The output length must be the same for every S in [1, max]: both bounds
    // from the same end, and within the axis even at S = 1.
    if (b.from_end != e.from_end) {
      return node_error(node, bounds +
                                  ": on the sequence axis S both bounds must count from the "
                                  "start or both from the end (the length may not depend on S)");
    }
    config.begin = b;
    config.length = e.offset - b.offset;
    config.first_token = !b.from_end && b.offset == 0 && config.length == 1;
    const bool fits_s1 = b.from_end ? b.offset >= -1 : e.offset <= 1;
    if (config.length < 0 || !fits_s1) {
      return node_error(node, bounds +
                                  " is not within the axis for every S >= 1 (on S only [0, 0|1) "
                                  "or [-1|0, end) can be taken)");
    }
  }
  Shape y = x->shape;
  y[axis] = config.length;
  outputs = {{x->dtype, y}};
  return config;
}

Status infer_slice(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_slice_node(graph, node, outputs).status();
}

class SliceOp final : public OpKernel {
 public:
  explicit SliceOp(SliceConfig config) : config_(config) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& x = context.inputs[0];
    if (context.sequence_offsets != nullptr && config_.first_token) return first_rows(context);
    if (context.batch > 1) {  // batch_support.h admits no other Slice into a batch
      return Status::error("Slice: only the first token of S rows is taken per sequence");
    }
    const size_t axis = config_.axis;
    const size_t dim = x.dims[axis];
    const size_t first = static_cast<size_t>(config_.begin.from_end
                                                 ? static_cast<int64_t>(dim) + config_.begin.offset
                                                 : config_.begin.offset);
    const size_t slab = inner_elements(x, axis) * data_type_size(x.dtype);  // bytes per axis step
    const size_t bytes = static_cast<size_t>(config_.length) * slab;
    const size_t outer = outer_elements(x, axis);
    for (size_t o = 0; o < outer; ++o) {
      std::memcpy(context.outputs[0].data + o * bytes, x.data + (o * dim + first) * slab, bytes);
    }
    return Status::ok();
  }

 private:
  // Rows [0, 1) of S in a batch: row b is sequence b's first row. A
  // sequence of none (its mask all 0) has no first token: an error, since
  // any row put in its place (zeros; transformers' pad row) would go on
  // through the head as if it were a text's.
  static Status first_rows(const OpRunContext& context) {
    const TensorView& x = context.inputs[0];
    const size_t row = inner_elements(x, 0) * data_type_size(x.dtype);
    const uint32_t* offsets = context.sequence_offsets;
    for (size_t b = 0; b < context.batch; ++b) {
      if (offsets[b + 1] == offsets[b]) {
        return Status::error("Slice: sequence " + std::to_string(b) +
                             " of the batch has no token (its attention mask row is all 0), "
                             "so no first token to take (CLS pooling, a classifier's head)");
      }
      std::memcpy(context.outputs[0].data + b * row, x.data + size_t{offsets[b]} * row, row);
    }
    return Status::ok();
  }

  SliceConfig config_;
};

Expected<std::unique_ptr<OpKernel>> create_slice(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(SliceConfig config,
                          check_slice_node(context.graph, context.node, outputs));
  return std::unique_ptr<OpKernel>(new SliceOp(config));
}

}  // namespace

bool slice_takes_first_token(const Graph& graph, const Node& node) {
  std::vector<InferredTensor> outputs;
  const Expected<SliceConfig> config = check_slice_node(graph, node, outputs);
  return config.is_ok() && config->first_token;
}

const OpSchema kConcatSchema = {OpType::kConcat, "Concat",     1, 64, 1, 1,
                                infer_concat,    create_concat};
const OpSchema kSplitSchema = {OpType::kSplit, "Split", 1, 1, 1, 64, infer_split, create_split};
const OpSchema kSliceSchema = {OpType::kSlice, "Slice", 1, 1, 1, 1, infer_slice, create_slice};

}  // namespace normrt
