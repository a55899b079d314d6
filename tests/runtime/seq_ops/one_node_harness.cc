#include "tests/runtime/seq_ops/one_node_harness.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace normrt::testing {

uint16_t round_to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN
  }
  const uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7FFFu + lsb) >> 16);
}

float bf16_to_float(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

OneNodeHarness::OneNodeHarness(OpType op, std::string node_name, int64_t max_sequence_length) {
  graph_.max_sequence_length = max_sequence_length;
  Node node;
  node.name = std::move(node_name);
  node.op = op;
  graph_.nodes.push_back(std::move(node));
}

TensorId OneNodeHarness::input(const std::string& name, Shape shape, TensorKind kind,
                               DataType dtype) {
  Tensor tensor;
  tensor.name = name;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  tensor.kind = kind;
  const TensorId id = graph_.add_tensor(std::move(tensor));
  node().inputs.push_back(id);
  return id;
}

TensorId OneNodeHarness::weight(const std::string& name, Shape shape,
                                const std::vector<float>& values, DataType dtype) {
  auto bytes = std::make_shared<std::vector<std::byte>>();
  if (dtype == DataType::kBF16) {
    bytes->resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t bits = round_to_bf16(values[i]);
      std::memcpy(bytes->data() + 2 * i, &bits, 2);
    }
  } else {
    bytes->resize(values.size() * sizeof(float));
    std::memcpy(bytes->data(), values.data(), bytes->size());
  }
  const TensorId id = input(name, std::move(shape), TensorKind::kWeight, dtype);
  TensorData& data = graph_.tensors[id].data;
  data.bytes = bytes->data();
  data.size = bytes->size();
  data.owner = bytes;
  return id;
}

void OneNodeHarness::absent_input() { node().inputs.push_back(kNoTensor); }

void OneNodeHarness::output(const std::string& name, Shape shape) {
  Tensor tensor;
  tensor.name = name;
  tensor.shape = std::move(shape);
  node().outputs.push_back(graph_.add_tensor(std::move(tensor)));
}

void OneNodeHarness::absent_output() { node().outputs.push_back(kNoTensor); }

void OneNodeHarness::attribute(const std::string& name, AttributeValue value) {
  node().set_attribute(name, std::move(value));
}

Status OneNodeHarness::infer() {
  const OpSchema* schema = find_op_schema(node().op);
  if (schema == nullptr || schema->infer_shapes == nullptr || schema->create == nullptr) {
    return Status::error("no schema");
  }
  const size_t inputs = node().inputs.size(), outputs = node().outputs.size();
  if (inputs < schema->min_inputs || inputs > schema->max_inputs || outputs < schema->min_outputs ||
      outputs > schema->max_outputs) {
    return Status::error("arity outside the schema's range");
  }
  std::vector<InferredTensor> inferred;
  NORMRT_RETURN_IF_ERROR(schema->infer_shapes(graph_, node(), inferred));
  if (inferred.size() != outputs) return Status::error("inferred output count differs");
  for (size_t i = 0; i < outputs; ++i) {
    if (node().outputs[i] == kNoTensor) continue;
    const Tensor& declared = graph_.tensors[node().outputs[i]];
    if (inferred[i].dtype != declared.dtype || inferred[i].shape != declared.shape) {
      return Status::error("output " + std::to_string(i) + ": inferred " +
                           shape_string(inferred[i].shape) + ", declared " +
                           shape_string(declared.shape));
    }
  }
  return Status::ok();
}

Status OneNodeHarness::create(Isa isa) {
  NORMRT_RETURN_IF_ERROR(infer());
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                          find_op_schema(node().op)->create(OpBuildContext{graph_, node(), isa}));
  kernel_ = std::move(kernel);
  session_ = kernel_->create_session_state();
  workspace_storage_.assign(kernel_->workspace_bytes() + 64, std::byte{0});
  const auto address = reinterpret_cast<uintptr_t>(workspace_storage_.data());
  workspace_ = workspace_storage_.data() + (64 - address % 64) % 64;
  return Status::ok();
}

TensorView OneNodeHarness::view_of(TensorId id, std::vector<float>* buffer,
                                   size_t sequence_length) const {
  TensorView view;
  if (id == kNoTensor) return view;
  const Tensor& tensor = graph_.tensors[id];
  view.dtype = tensor.dtype;
  view.rank = static_cast<uint32_t>(tensor.shape.size());
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    view.dims[i] =
        tensor.shape[i] == kSequenceDim ? sequence_length : static_cast<size_t>(tensor.shape[i]);
  }
  if (tensor.kind == TensorKind::kWeight) {
    view.data = const_cast<std::byte*>(tensor.data.bytes);
    return view;
  }
  if (buffer == nullptr || buffer->size() != view.elements()) {
    throw std::logic_error("test buffer for '" + tensor.name + "' must hold " +
                           std::to_string(view.elements()) + " floats");
  }
  view.data = reinterpret_cast<std::byte*>(buffer->data());
  return view;
}

Status OneNodeHarness::run(const std::vector<std::vector<float>*>& inputs,
                           const std::vector<std::vector<float>*>& outputs, size_t sequence_length,
                           size_t position, ThreadPool* pool) {
  const Node& n = graph_.nodes[0];
  if (inputs.size() != n.inputs.size() || outputs.size() != n.outputs.size()) {
    throw std::logic_error("one buffer per operand");
  }
  std::vector<TensorView> in, out;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    in.push_back(view_of(n.inputs[i], inputs[i], sequence_length));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    out.push_back(view_of(n.outputs[i], outputs[i], sequence_length));
  }
  OpRunContext context;
  context.inputs = in.data();
  context.input_count = in.size();
  context.outputs = out.data();
  context.output_count = out.size();
  context.workspace = workspace_;
  context.sequence_length = sequence_length;
  context.position = position;
  context.pool = pool;
  context.session_state = session_.get();
  return kernel_->run(context);
}

}  // namespace normrt::testing
