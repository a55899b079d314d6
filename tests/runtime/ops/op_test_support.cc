#include "tests/runtime/ops/op_test_support.h"

#include <cstring>
#include <memory>
#include <utility>

#include "base/bf16.h"
#include "runtime/validate/graph_validate.h"

namespace normrt::testing {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<float> random_floats(size_t count, float lo, float hi, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(lo, hi);
  std::vector<float> values(count);
  for (float& value : values) value = distribution(generator);
  return values;
}

std::vector<uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float value : values) bits.push_back(bf16_from_float(value));
  return bits;
}

std::vector<float> from_bf16(const std::vector<uint16_t>& bits) {
  std::vector<float> values;
  for (uint16_t b : bits) values.push_back(float_from_bf16(b));
  return values;
}

TensorId OpHarness::input(const std::string& name, const Shape& shape, DataType dtype) {
  TensorId id = graph.add_tensor({name, dtype, shape, TensorKind::kInput, {}});
  graph.inputs.push_back(id);
  return id;
}

namespace {

// Weight bytes owned by the tensor's TensorData.
template <class T>
TensorData owned_data(const std::vector<T>& values) {
  auto owner = std::make_shared<std::vector<T>>(values);
  TensorData data;
  data.bytes = reinterpret_cast<const std::byte*>(owner->data());
  data.size = owner->size() * sizeof(T);
  data.owner = owner;
  return data;
}

}  // namespace

TensorId OpHarness::weight(const std::string& name, const Shape& shape,
                           const std::vector<float>& values) {
  return graph.add_tensor({name, DataType::kF32, shape, TensorKind::kWeight, owned_data(values)});
}

TensorId OpHarness::weight_bf16(const std::string& name, const Shape& shape,
                                const std::vector<uint16_t>& bits) {
  return graph.add_tensor({name, DataType::kBF16, shape, TensorKind::kWeight, owned_data(bits)});
}

TensorId OpHarness::intermediate(const std::string& name, const Shape& shape, DataType dtype) {
  return graph.add_tensor({name, dtype, shape, TensorKind::kIntermediate, {}});
}

TensorId OpHarness::state(const std::string& name, const Shape& shape, DataType dtype) {
  return graph.add_tensor({name, dtype, shape, TensorKind::kState, {}});
}

size_t OpHarness::node(OpType op, const std::string& name, std::vector<TensorId> inputs,
                       std::vector<TensorId> outputs, std::vector<Attribute> attributes) {
  Node node;
  node.name = name;
  node.op = op;
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  node.attributes = std::move(attributes);
  for (TensorId id : node.outputs) {
    if (id != kNoTensor) graph.outputs.push_back(id);
  }
  graph.nodes.push_back(std::move(node));
  return graph.nodes.size() - 1;
}

Status OpHarness::infer(size_t index) const {
  const Node& node = graph.nodes[resolve(index)];
  std::vector<InferredTensor> outputs;
  return find_op_schema(node.op)->infer_shapes(graph, node, outputs);
}

Status OpHarness::validate() const { return graph_validate(graph); }

Expected<std::unique_ptr<OpKernel>> OpHarness::create(size_t index) const {
  NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
  return create(isa, index);
}

Expected<std::unique_ptr<OpKernel>> OpHarness::create(Isa isa, size_t index) const {
  const Node& node = graph.nodes[resolve(index)];
  return find_op_schema(node.op)->create(OpBuildContext{graph, node, isa});
}

void OpHarness::set(TensorId id, const std::vector<float>& values) {
  std::vector<uint32_t>& buffer = buffers_[id];
  buffer.resize(values.size());
  std::memcpy(buffer.data(), values.data(), values.size() * sizeof(float));
}

void OpHarness::set_i32(TensorId id, const std::vector<int32_t>& values) {
  std::vector<uint32_t>& buffer = buffers_[id];
  buffer.resize(values.size());
  std::memcpy(buffer.data(), values.data(), values.size() * sizeof(int32_t));
}

TensorView OpHarness::view_of(TensorId id, size_t sequence_length) {
  TensorView view;
  if (id == kNoTensor) return view;
  const Tensor& tensor = graph.tensors[id];
  view.dtype = tensor.dtype;
  view.rank = static_cast<uint32_t>(tensor.shape.size());
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    view.dims[i] = tensor.shape[i] == kSequenceDim ? sequence_length : size_t(tensor.shape[i]);
  }
  if (tensor.kind == TensorKind::kWeight) {
    view.data = const_cast<std::byte*>(tensor.data.bytes);
    return view;
  }
  auto alias = aliases_.find(id);
  std::vector<uint32_t>& buffer = buffers_[alias == aliases_.end() ? id : alias->second];
  // An empty buffer still needs a non-null address to count as present.
  if (buffer.size() < view.elements() || buffer.empty()) buffer.resize(view.elements() + 1);
  view.data = reinterpret_cast<std::byte*>(buffer.data());
  return view;
}

Status OpHarness::run(const OpKernel& kernel, size_t sequence_length, size_t position, size_t index,
                      ThreadPool* pool) {
  const Node& node = graph.nodes[resolve(index)];
  std::vector<TensorView> inputs, outputs;
  for (TensorId id : node.inputs) {
    if (id != kNoTensor && graph.tensors[id].kind != TensorKind::kWeight) {
      const size_t needed = shape_elements(graph.tensors[id].shape, sequence_length);
      if (buffers_[id].size() != needed) {
        return Status::error("test harness: input '" + graph.tensors[id].name + "' holds " +
                             std::to_string(buffers_[id].size()) + " elements, S = " +
                             std::to_string(sequence_length) + " needs " + std::to_string(needed));
      }
    }
    inputs.push_back(view_of(id, sequence_length));
  }
  for (TensorId id : node.outputs) {
    if (id != kNoTensor && aliases_.count(id) == 0) {
      // Quiet NaN everywhere: an element the kernel forgets to write shows up.
      buffers_[id].assign(shape_elements(graph.tensors[id].shape, sequence_length), 0x7FC00000u);
    }
    outputs.push_back(view_of(id, sequence_length));
  }
  OpRunContext context;
  context.inputs = inputs.data();
  context.input_count = inputs.size();
  context.outputs = outputs.data();
  context.output_count = outputs.size();
  context.sequence_length = sequence_length;
  context.position = position;
  context.pool = pool;
  // The kernel's scratch, 64-byte aligned as a session arena gives it.
  std::vector<std::byte> workspace(kernel.workspace_bytes() + 64);
  void* aligned = workspace.data();
  size_t space = workspace.size();
  context.workspace = static_cast<std::byte*>(std::align(64, 1, aligned, space));
  // Per-session state as a Session would make it (oneDNN contexts, RNN workspaces).
  std::unique_ptr<OpSessionState> state =
      kernel.create_session_state_with_threads(pool != nullptr ? pool->size() : 1);
  context.session_state = state.get();
  return kernel.run(context);
}

std::vector<float> OpHarness::get(TensorId id) const {
  auto alias = aliases_.find(id);
  const std::vector<uint32_t>& buffer = buffers_.at(alias == aliases_.end() ? id : alias->second);
  std::vector<float> values(buffer.size());
  std::memcpy(values.data(), buffer.data(), buffer.size() * sizeof(float));
  return values;
}

}  // namespace normrt::testing
