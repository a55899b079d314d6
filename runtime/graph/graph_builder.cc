#include "runtime/graph/graph_builder.h"

#include <cstring>
#include <memory>
#include <utility>

#include "base/bf16.h"

namespace normrt {
namespace {

TensorId add(Graph& graph, std::string name, DataType dtype, Shape shape, TensorKind kind) {
  Tensor tensor;
  tensor.name = std::move(name);
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.kind = kind;
  return graph.add_tensor(std::move(tensor));
}

TensorData owned_bytes(std::vector<std::byte> bytes) {
  auto buffer = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  return {buffer->data(), buffer->size(), buffer};
}

}  // namespace

TensorId GraphBuilder::input(const std::string& name, DataType dtype, Shape shape) {
  TensorId id = add(graph_, name, dtype, std::move(shape), TensorKind::kInput);
  graph_.inputs.push_back(id);
  return id;
}

TensorId GraphBuilder::weight(const std::string& name, Shape shape,
                              const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  TensorId id = add(graph_, name, DataType::kF32, std::move(shape), TensorKind::kWeight);
  graph_.tensors[id].data = owned_bytes(std::move(bytes));
  return id;
}

TensorId GraphBuilder::weight_bf16(const std::string& name, Shape shape,
                                   const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = bf16_from_float(values[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);  // little-endian hosts only (checked in CMake)
  }
  TensorId id = add(graph_, name, DataType::kBF16, std::move(shape), TensorKind::kWeight);
  graph_.tensors[id].data = owned_bytes(std::move(bytes));
  return id;
}

TensorId GraphBuilder::state(const std::string& name, DataType dtype, Shape shape) {
  return add(graph_, name, dtype, std::move(shape), TensorKind::kState);
}

TensorId GraphBuilder::node(OpType op, const std::string& name, std::vector<TensorId> inputs,
                            std::vector<Shape> output_shapes, std::vector<Attribute> attributes) {
  Node node;
  node.name = name;
  node.op = op;
  node.inputs = std::move(inputs);
  node.attributes = std::move(attributes);
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    node.outputs.push_back(add(graph_, name + ":" + std::to_string(i), DataType::kF32,
                               std::move(output_shapes[i]), TensorKind::kIntermediate));
  }
  graph_.nodes.push_back(std::move(node));
  return graph_.nodes.back().outputs.empty() ? kNoTensor : graph_.nodes.back().outputs[0];
}

Graph GraphBuilder::finish(int64_t max_sequence_length) {
  graph_.max_sequence_length = max_sequence_length;
  return std::move(graph_);
}

}  // namespace normrt
