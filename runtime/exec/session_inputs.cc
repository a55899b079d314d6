// Session::set_input, typed and untyped: which data may feed which input,
// the shape check, and the int64 → int32 conversion of token ids into the
// session's own buffer (allocated at creation, so binding allocates nothing).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

struct InputSlot {
  size_t index = 0;  ///< in graph.inputs
  TensorId id = kNoTensor;
  const Tensor* tensor = nullptr;
};

Expected<InputSlot> find_input(const Graph& graph, std::string_view name) {
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const Tensor& tensor = graph.tensors[graph.inputs[i]];
    if (tensor.name == name) return InputSlot{i, graph.inputs[i], &tensor};
  }
  std::string known;
  for (TensorId id : graph.inputs) known += (known.empty() ? "" : ", ") + graph.tensors[id].name;
  return Status::error("set_input: the model has no input '" + std::string(name) +
                       "' (inputs: " + known + ")");
}

// "'ids' [S] i32".
std::string describe(const Tensor& tensor) {
  return "'" + tensor.name + "' " + shape_string(tensor.shape) + " " + data_type_name(tensor.dtype);
}

// The sequences and their length a shape gives an input.
struct BoundShape {
  size_t length = 0;  ///< S (0 if the input's shape has no S)
  size_t batch = 1;   ///< B
};

// Points the input's view at `data` of `bound`.
void bind(Session::Impl& session, const InputSlot& slot, const void* data, BoundShape bound) {
  TensorView view = session.views[slot.id];
  view.data = static_cast<std::byte*>(const_cast<void*>(data));  // kernels never write inputs
  session.publish(slot.id, view);
  session.bound_data[slot.index] = view.data;
  session.bound_length[slot.index] = bound.length;
  session.bound_batch[slot.index] = bound.batch;
}

std::string shape_text(const TensorShape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// S (and B) of `shape` for the input, or an error. A shape of one more
// dimension than an input [S, ...] is a batch [B, S, ...].
Expected<BoundShape> bound_shape_of(const Session::Impl& session, const Tensor& tensor,
                                    const TensorShape& shape) {
  const size_t max_length = static_cast<size_t>(session.compiled->graph.max_sequence_length);
  const bool batched = shape.size() == tensor.shape.size() + 1 && !tensor.shape.empty() &&
                       tensor.shape[0] == kSequenceDim;
  const size_t skip = batched ? 1 : 0;
  BoundShape bound;
  bool fits = shape.size() == tensor.shape.size() + skip;
  for (size_t i = 0; fits && i < tensor.shape.size(); ++i) {
    const size_t given = shape[i + skip];
    if (tensor.shape[i] != kSequenceDim) {
      fits = given == static_cast<size_t>(tensor.shape[i]);
      continue;
    }
    fits = given >= 1 && given <= max_length && (bound.length == 0 || given == bound.length);
    bound.length = given;
  }
  // Built only on failure: binding allocates nothing.
  auto refuse = [&](const std::string& as_batch) {
    const std::string range =
        has_sequence_dim(tensor.shape) ? " (1 ≤ S ≤ " + std::to_string(max_length) + ")" : "";
    return Status::error("set_input: shape " + shape_text(shape) + " does not fit input " +
                         describe(tensor) + range +
                         (as_batch.empty() ? "" : "; as a batch [B, ...]: " + as_batch));
  };
  if (!fits) return refuse("");
  if (!batched) return bound;
  bound.batch = shape[0];
  if (bound.batch == 0) return refuse("a batch of 0 sequences");
  if (bound.batch > session.max_batch)
    return refuse("a batch of " + std::to_string(bound.batch) +
                  " sequences > the session's max_batch " + std::to_string(session.max_batch) +
                  " (SessionOptions::max_batch)");
  if (bound.batch > 1 && !session.compiled->batch.refusal.empty())
    return refuse("the model runs one sequence at a time: " + session.compiled->batch.refusal);
  return bound;
}

bool can_feed(ElementType type, DataType declared) {
  if (declared == DataType::kF32) return type == ElementType::kF32;
  if (declared == DataType::kI32) return type == ElementType::kI32 || type == ElementType::kI64;
  return false;
}

// Checks every value first, so that a refused array leaves nothing half-converted.
Status convert_ids(const Tensor& tensor, const int64_t* ids, size_t count, int32_t* out) {
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] < std::numeric_limits<int32_t>::min() ||
        ids[i] > std::numeric_limits<int32_t>::max())
      return Status::error("set_input: '" + tensor.name + "' value " + std::to_string(ids[i]) +
                           " at index " + std::to_string(i) + " is outside the i32 range");
  }
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<int32_t>(ids[i]);
  return Status::ok();
}

}  // namespace

const char* element_type_name(ElementType type) {
  switch (type) {
    case ElementType::kF32:
      return "f32";
    case ElementType::kI32:
      return "i32";
    case ElementType::kI64:
      return "i64";
  }
  return "invalid";
}

Status Session::set_input(std::string_view name, ElementType type, const void* data,
                          const TensorShape& shape) {
  Session::Impl& session = *impl_;
  const Graph& graph = session.compiled->graph;
  NORMRT_ASSIGN_OR_RETURN(InputSlot slot, find_input(graph, name));
  const Tensor& tensor = *slot.tensor;
  if (!can_feed(type, tensor.dtype))
    return Status::error(std::string("set_input: ") + element_type_name(type) +
                         " data cannot feed input " + describe(tensor) +
                         (tensor.dtype == DataType::kI32 ? " (give i32 or i64)" : " (give f32)"));
  if (data == nullptr) return Status::error("set_input: '" + tensor.name + "': data is null");
  NORMRT_ASSIGN_OR_RETURN(BoundShape bound, bound_shape_of(session, tensor, shape));
  if (type == ElementType::kI64) {
    auto* converted = reinterpret_cast<int32_t*>(session.converted_inputs[slot.index].get());
    const size_t count =
        shape_elements(tensor.shape, bound.length == 0 ? 1 : bound.length) * bound.batch;
    // A refused array changes nothing: convert_ids() checks before it writes.
    NORMRT_RETURN_IF_ERROR(
        convert_ids(tensor, static_cast<const int64_t*>(data), count, converted));
    data = converted;
  }
  bind(session, slot, data, bound);
  return Status::ok();
}

Status Session::set_input(std::string_view name, const void* data, size_t bytes) {
  const Graph& graph = impl_->compiled->graph;
  NORMRT_ASSIGN_OR_RETURN(InputSlot slot, find_input(graph, name));
  const Tensor& tensor = *slot.tensor;
  if (data == nullptr) return Status::error("set_input: '" + tensor.name + "': data is null");
  // unit: the bytes of one step of S (of the whole input if it has no S).
  const size_t unit = shape_elements(tensor.shape, 1) * data_type_size(tensor.dtype);
  const bool has_sequence = has_sequence_dim(tensor.shape);
  const size_t max_length = has_sequence ? static_cast<size_t>(graph.max_sequence_length) : 1;
  const bool fits = unit == 0 ? bytes == 0 && !has_sequence
                              : bytes != 0 && bytes % unit == 0 && bytes / unit <= max_length;
  if (!fits) {
    std::string expected = has_sequence ? "S × " + std::to_string(unit) + " bytes with 1 ≤ S ≤ " +
                                              std::to_string(max_length)
                                        : std::to_string(unit) + " bytes";
    return Status::error("set_input: " + describe(tensor) + ": expected " + expected + ", got " +
                         std::to_string(bytes) + " bytes");
  }
  bind(*impl_, slot, data, BoundShape{has_sequence ? bytes / unit : 0, 1});
  return Status::ok();
}

}  // namespace normrt
