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

// Points the input's view at `data` of S = `length` (0: no S in its shape).
void bind(Session::Impl& session, const InputSlot& slot, const void* data, size_t length) {
  TensorView view = session.views[slot.id];
  view.data = static_cast<std::byte*>(const_cast<void*>(data));  // kernels never write inputs
  session.publish(slot.id, view);
  session.bound_length[slot.index] = length;
}

// S of `shape` for the input (0 if its shape has no S), or an error.
Expected<size_t> sequence_length_of(const Tensor& tensor, const TensorShape& shape,
                                    size_t max_length) {
  bool fits = shape.size() == tensor.shape.size();
  size_t length = 0;
  for (size_t i = 0; fits && i < shape.size(); ++i) {
    if (tensor.shape[i] != kSequenceDim) {
      fits = shape[i] == static_cast<size_t>(tensor.shape[i]);
      continue;
    }
    fits = shape[i] >= 1 && shape[i] <= max_length && (length == 0 || shape[i] == length);
    length = shape[i];
  }
  if (fits) return length;
  std::string given = "[";
  for (size_t i = 0; i < shape.size(); ++i) given += (i ? ", " : "") + std::to_string(shape[i]);
  const std::string range =
      has_sequence_dim(tensor.shape) ? " (1 ≤ S ≤ " + std::to_string(max_length) + ")" : "";
  return Status::error("set_input: shape " + given + "] does not fit input " + describe(tensor) +
                       range);
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
  Expected<InputSlot> slot = find_input(graph, name);
  if (!slot) return slot.status();
  const Tensor& tensor = *slot->tensor;
  if (!can_feed(type, tensor.dtype))
    return Status::error(std::string("set_input: ") + element_type_name(type) +
                         " data cannot feed input " + describe(tensor) +
                         (tensor.dtype == DataType::kI32 ? " (give i32 or i64)" : " (give f32)"));
  if (data == nullptr) return Status::error("set_input: '" + tensor.name + "': data is null");
  Expected<size_t> length =
      sequence_length_of(tensor, shape, static_cast<size_t>(graph.max_sequence_length));
  if (!length) return length.status();
  if (type == ElementType::kI64) {
    auto* converted = reinterpret_cast<int32_t*>(session.converted_inputs[slot->index].get());
    const size_t count = shape_elements(tensor.shape, *length == 0 ? 1 : *length);
    // A refused array changes nothing: convert_ids() checks before it writes.
    if (Status s = convert_ids(tensor, static_cast<const int64_t*>(data), count, converted); !s)
      return s;
    data = converted;
  }
  bind(session, *slot, data, *length);
  return Status::ok();
}

Status Session::set_input(std::string_view name, const void* data, size_t bytes) {
  const Graph& graph = impl_->compiled->graph;
  Expected<InputSlot> slot = find_input(graph, name);
  if (!slot) return slot.status();
  const Tensor& tensor = *slot->tensor;
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
  bind(*impl_, *slot, data, has_sequence ? bytes / unit : 0);
  return Status::ok();
}

}  // namespace normrt
