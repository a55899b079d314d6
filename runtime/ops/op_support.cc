#include "runtime/ops/op_support.h"

#include <sstream>
#include <variant>

namespace normrt {

std::string message_number(double value) {
  std::ostringstream text;
  text.precision(9);
  text << value;
  return text.str();
}

std::string node_label(const Node& node) {
  return "node '" + node.name + "' (" + op_type_name(node.op) + ")";
}

Status node_error(const Node& node, const std::string& what) {
  return Status::error(node_label(node) + ": " + what);
}

Status check_attribute_names(const Node& node, const std::vector<std::string_view>& allowed) {
  for (const Attribute& attribute : node.attributes) {
    bool known = false;
    for (std::string_view name : allowed) known = known || attribute.name == name;
    if (known) continue;
    std::string takes;
    for (std::string_view name : allowed) {
      takes += takes.empty() ? "" : ", ";
      takes += name;
    }
    return node_error(node,
                      "unknown attribute '" + attribute.name + "' (" + op_type_name(node.op) +
                          (takes.empty() ? " takes no attributes)" : " takes " + takes + ")"));
  }
  return Status::ok();
}

Status check_attribute_names(const Node& node, std::initializer_list<std::string_view> allowed) {
  return check_attribute_names(node, std::vector<std::string_view>(allowed));
}

Expected<std::vector<int64_t>> int_list_attribute(const Node& node, const std::string& name,
                                                  std::vector<int64_t> fallback) {
  const AttributeValue* value = node.find_attribute(name);
  if (value == nullptr) return fallback;
  if (const auto* list = std::get_if<std::vector<int64_t>>(value)) return *list;
  return node_error(node, "attribute '" + name + "' must be an int list");
}

const Tensor* input_tensor(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.inputs.size() || node.inputs[index] == kNoTensor) return nullptr;
  return &graph.tensors[node.inputs[index]];
}

const Tensor* output_tensor(const Graph& graph, const Node& node, size_t index) {
  if (index >= node.outputs.size() || node.outputs[index] == kNoTensor) return nullptr;
  return &graph.tensors[node.outputs[index]];
}

std::string operand_name(size_t index, const char* role) {
  return "operand " + std::to_string(index) + " (" + role + ")";
}

std::string tensor_type_string(const Tensor& tensor) {
  return std::string(data_type_name(tensor.dtype)) + " " + shape_string(tensor.shape);
}

namespace {

std::string named(size_t index, const char* role, const Tensor& tensor) {
  return operand_name(index, role) + " '" + tensor.name + "'";
}

}  // namespace

Expected<const Tensor*> required_input(const Graph& graph, const Node& node, size_t index,
                                       const char* role) {
  const Tensor* tensor = input_tensor(graph, node, index);
  if (tensor == nullptr) return node_error(node, operand_name(index, role) + " is required");
  return tensor;
}

Status check_dtype(const Node& node, size_t index, const char* role, const Tensor& tensor,
                   std::initializer_list<DataType> allowed) {
  std::string expected;
  for (DataType type : allowed) {
    if (type == tensor.dtype) return Status::ok();
    expected += expected.empty() ? "" : " or ";
    expected += data_type_name(type);
  }
  return node_error(node, named(index, role, tensor) + " must be " + expected + ", found " +
                              data_type_name(tensor.dtype));
}

Status check_kind(const Node& node, size_t index, const char* role, const Tensor& tensor,
                  TensorKind expected) {
  if (tensor.kind == expected) return Status::ok();
  return node_error(node, named(index, role, tensor) + " must be a " + tensor_kind_name(expected) +
                              " tensor, found " + tensor_kind_name(tensor.kind));
}

Status check_rows_operand(const Node& node, size_t index, const char* role, const Tensor& tensor,
                          size_t min_rank) {
  if (tensor.shape.size() < min_rank) {
    return node_error(node, named(index, role, tensor) + " must have rank >= " +
                                std::to_string(min_rank) + ", found " + shape_string(tensor.shape));
  }
  if (!tensor.shape.empty() && tensor.shape.back() < 1) {
    return node_error(node, named(index, role, tensor) +
                                " must have a fixed last dimension >= 1, found " +
                                shape_string(tensor.shape));
  }
  return Status::ok();
}

Status check_shape(const Node& node, size_t index, const char* role, const Tensor& tensor,
                   const Shape& expected) {
  if (tensor.shape == expected) return Status::ok();
  return node_error(node, named(index, role, tensor) + " must have shape " +
                              shape_string(expected) + ", found " + shape_string(tensor.shape));
}

Status check_f32_vector(const Node& node, size_t index, const char* role, const Tensor& tensor,
                        int64_t n) {
  Status s = check_dtype(node, index, role, tensor, {DataType::kF32});
  if (s) s = check_shape(node, index, role, tensor, Shape{n});
  return s;
}

Status check_build_isa(const OpBuildContext& context) {
  Status runnable = check_isa_runnable(context.isa);
  if (!runnable) return node_error(context.node, runnable.message());
  return Status::ok();
}

}  // namespace normrt
