#include "runtime/graph/graph.h"

#include <utility>

#include "kernels/linear/linear.h"
#include "runtime/graph/int8_weight.h"

namespace normrt {

const char* data_type_name(DataType type) {
  switch (type) {
    case DataType::kF32:
      return "f32";
    case DataType::kBF16:
      return "bf16";
    case DataType::kI32:
      return "i32";
    case DataType::kInt8:
      return "int8";
  }
  return "invalid";
}

size_t data_type_size(DataType type) {
  switch (type) {
    case DataType::kF32:
    case DataType::kI32:
      return 4;
    case DataType::kBF16:
      return 2;
    case DataType::kInt8:
      return 1;
  }
  return 0;
}

std::string shape_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += shape[i] == kSequenceDim ? std::string("S") : std::to_string(shape[i]);
  }
  return text + "]";
}

bool has_sequence_dim(const Shape& shape) {
  for (int64_t dim : shape) {
    if (dim == kSequenceDim) return true;
  }
  return false;
}

size_t shape_elements(const Shape& shape, size_t sequence_length) {
  size_t elements = 1;
  for (int64_t dim : shape) {
    elements *= dim == kSequenceDim ? sequence_length : static_cast<size_t>(dim);
  }
  return elements;
}

const char* tensor_kind_name(TensorKind kind) {
  switch (kind) {
    case TensorKind::kInput:
      return "input";
    case TensorKind::kWeight:
      return "weight";
    case TensorKind::kIntermediate:
      return "intermediate";
    case TensorKind::kState:
      return "state";
  }
  return "invalid";
}

const char* tensor_layout_name(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::kRowMajor:
      return "row_major";
    case TensorLayout::kPanels16:
      return "panels16";
    case TensorLayout::kPanels32:
      return "panels32";
    case TensorLayout::kPanels64:
      return "panels64";
  }
  return "invalid";
}

size_t tensor_layout_panel_width(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::kPanels16:
      return 16;
    case TensorLayout::kPanels32:
      return 32;
    case TensorLayout::kPanels64:
      return 64;
    default:
      return 0;
  }
}

Expected<size_t> weight_data_bytes(const Tensor& tensor) {
  size_t elements = 1;
  for (int64_t dim : tensor.shape) {
    if (dim < 0) return Status::error("weight '" + tensor.name + "' has the symbolic dimension S");
    if (dim != 0 && elements > SIZE_MAX / static_cast<size_t>(dim)) {
      return Status::error("weight '" + tensor.name + "' is too large");
    }
    elements *= static_cast<size_t>(dim);
  }
  const bool matrix = tensor.shape.size() == 2 && tensor.shape[0] > 0 && tensor.shape[1] > 0;
  if (tensor.dtype == DataType::kInt8 && !matrix) {
    return Status::error("weight '" + tensor.name +
                         "': int8 weights are matrices [N, K] with N, K >= 1 (one scale per "
                         "row), found " +
                         shape_string(tensor.shape));
  }
  if (tensor.layout == TensorLayout::kRowMajor) {
    if (elements > SIZE_MAX / 4) return Status::error("weight '" + tensor.name + "' is too large");
    if (tensor.dtype == DataType::kInt8) {
      return int8_row_major_bytes(static_cast<size_t>(tensor.shape[0]),
                                  static_cast<size_t>(tensor.shape[1]));
    }
    return elements * data_type_size(tensor.dtype);
  }
  const size_t panel_width = tensor_layout_panel_width(tensor.layout);
  const bool matrix_type = tensor.dtype == DataType::kF32 || tensor.dtype == DataType::kBF16 ||
                           tensor.dtype == DataType::kInt8;
  if (panel_width == 0 || !matrix || !matrix_type) {
    return Status::error("weight '" + tensor.name + "': layout " +
                         tensor_layout_name(tensor.layout) +
                         " needs a valid panel layout of an f32, bf16 or int8 matrix [N, K], "
                         "found " +
                         data_type_name(tensor.dtype) + " " + shape_string(tensor.shape));
  }
  Expected<size_t> bytes = packed_weights_bytes(static_cast<size_t>(tensor.shape[0]),
                                                static_cast<size_t>(tensor.shape[1]),
                                                linear_weight_type(tensor.dtype), panel_width);
  if (!bytes) return Status::error("weight '" + tensor.name + "': " + bytes.status().message());
  return bytes;
}

const char* op_type_name(OpType type) {
  static const char* const kNames[] = {"Linear",
                                       "LayerNorm",
                                       "RmsNorm",
                                       "PRmsNorm",
                                       "Add",
                                       "Mul",
                                       "Activation",
                                       "Embedding",
                                       "Softmax",
                                       "Attention",
                                       "Concat",
                                       "Split",
                                       "Slice",
                                       "LstmCell",
                                       "GruCellBa",
                                       "FusedLinear",
                                       "Rope",
                                       "MeanPool",
                                       "L2Normalize",
                                       "AdditiveAttention",
                                       "GruRecurrenceCho",
                                       "Conv2d",
                                       "MaxPool2d",
                                       "AvgPool2d",
                                       "GlobalAvgPool",
                                       "Abs",
                                       "MatMul",
                                       "OrderViolation",
                                       "MixtureDensity",
                                       "MixtureSample"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(OpType::kCount));
  auto index = static_cast<size_t>(type);
  return index < static_cast<size_t>(OpType::kCount) ? kNames[index] : "invalid";
}

const AttributeValue* Node::find_attribute(const std::string& attribute_name) const {
  for (const Attribute& attribute : attributes) {
    if (attribute.name == attribute_name) return &attribute.value;
  }
  return nullptr;
}

namespace {

const char* attribute_type_name(const AttributeValue& value) {
  static const char* const kNames[] = {"int", "float", "string", "int list", "bytes"};
  return kNames[value.index()];
}

template <class T>
Expected<T> typed_attribute(const Node& node, const std::string& name, T fallback,
                            const char* expected) {
  const AttributeValue* value = node.find_attribute(name);
  if (value == nullptr) return fallback;
  if (const T* typed = std::get_if<T>(value)) return *typed;
  return Status::error("node '" + node.name + "' (" + op_type_name(node.op) + "): attribute '" +
                       name + "' must be " + expected + ", found " + attribute_type_name(*value));
}

}  // namespace

Expected<int64_t> Node::int_attribute(const std::string& name, int64_t fallback) const {
  return typed_attribute<int64_t>(*this, name, fallback, "an int");
}

Expected<double> Node::float_attribute(const std::string& name, double fallback) const {
  // An integer literal is accepted where a float is expected (eps = 0, p = 1).
  const AttributeValue* value = find_attribute(name);
  if (value != nullptr) {
    if (const int64_t* integer = std::get_if<int64_t>(value)) return static_cast<double>(*integer);
  }
  return typed_attribute<double>(*this, name, fallback, "a float");
}

Expected<std::string> Node::string_attribute(const std::string& name, std::string fallback) const {
  return typed_attribute<std::string>(*this, name, std::move(fallback), "a string");
}

void Node::set_attribute(const std::string& attribute_name, AttributeValue value) {
  for (Attribute& attribute : attributes) {
    if (attribute.name == attribute_name) {
      attribute.value = std::move(value);
      return;
    }
  }
  attributes.push_back({attribute_name, std::move(value)});
}

TensorId Graph::find_tensor(const std::string& tensor_name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == tensor_name) return static_cast<TensorId>(i);
  }
  return kNoTensor;
}

TensorId Graph::add_tensor(Tensor tensor) {
  tensors.push_back(std::move(tensor));
  return static_cast<TensorId>(tensors.size() - 1);
}

}  // namespace normrt
