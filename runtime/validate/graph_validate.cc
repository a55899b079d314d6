// graph_validate(): every check a Graph must pass before passes and plans
// may trust it, in the order they are made (later checks rely on earlier ones):
//   1. max_sequence_length in [1, 2^20].
//   2. Tensors: a valid dtype and kind, rank ≤ TensorView::kMaxRank, dims ≥ 0
//      or S, at most kMaxTensorBytes at S = max (overflow-checked); a weight
//      has no S and exactly its bytes of data, other kinds have none.
//   3. Nodes: a known op with a schema this build implements, arity within
//      the schema's ranges, tensor ids in range (or kNoTensor).
//   4. Producers: only intermediates are written, each by exactly one node
//      (and once); every node reads only inputs, weights, states and
//      intermediates of earlier nodes (no cycle, no use before definition).
//   5. Graph inputs are exactly the kInput tensors; outputs exist and are not
//      weights; each state update maps a state to a value of its dtype and shape.
//   6. Shape inference: each schema's infer_shapes() must succeed and agree
//      with the declared dtype and shape of every present output.
#include "runtime/validate/graph_validate.h"

#include <string>
#include <vector>

#include "runtime/ops/op.h"
#include "runtime/validate/graph_validate_with.h"

namespace normrt {
namespace {

constexpr int64_t kMaxSequenceLength = int64_t{1} << 20;
/// 1 TiB: far beyond any model, small enough that sizes never overflow later.
constexpr size_t kMaxTensorBytes = size_t{1} << 40;
constexpr size_t kNone = static_cast<size_t>(-1);

std::string tensor_label(const Graph& graph, TensorId id) {
  return "tensor '" + graph.tensors[id].name + "'";
}

std::string node_label(const Node& node) {
  return "node '" + node.name + "' (" + op_type_name(node.op) + ")";
}

bool valid_kind(TensorKind kind) {
  return kind == TensorKind::kInput || kind == TensorKind::kWeight ||
         kind == TensorKind::kIntermediate || kind == TensorKind::kState;
}

Status check_tensor(const Graph& graph, TensorId id) {
  const Tensor& tensor = graph.tensors[id];
  const std::string label = tensor_label(graph, id);
  const size_t element = data_type_size(tensor.dtype);
  if (element == 0) {
    return Status::error(label + ": invalid dtype " +
                         std::to_string(static_cast<int>(tensor.dtype)));
  }
  if (!valid_kind(tensor.kind)) {
    return Status::error(label + ": invalid kind " + std::to_string(static_cast<int>(tensor.kind)));
  }
  if (tensor.shape.size() > TensorView::kMaxRank) {
    return Status::error(label + ": rank " + std::to_string(tensor.shape.size()) + " exceeds " +
                         std::to_string(TensorView::kMaxRank) + " (shape " +
                         shape_string(tensor.shape) + ")");
  }
  size_t bytes = element;
  bool has_sequence = false;
  for (int64_t dim : tensor.shape) {
    if (dim < 0 && dim != kSequenceDim) {
      return Status::error(label + ": dimension " + std::to_string(dim) +
                           " is neither >= 0 nor S (shape " + shape_string(tensor.shape) + ")");
    }
    has_sequence = has_sequence || dim == kSequenceDim;
    const auto extent = static_cast<size_t>(dim == kSequenceDim ? graph.max_sequence_length : dim);
    if (extent != 0 && bytes > kMaxTensorBytes / extent) {
      return Status::error(label + ": " + shape_string(tensor.shape) + " " +
                           data_type_name(tensor.dtype) + " exceeds " +
                           std::to_string(kMaxTensorBytes) +
                           " bytes at S = " + std::to_string(graph.max_sequence_length));
    }
    bytes *= extent;
  }
  if (tensor.kind == TensorKind::kWeight) {
    if (has_sequence) {
      return Status::error(label + ": a weight cannot have the sequence dimension S (shape " +
                           shape_string(tensor.shape) + ")");
    }
    Expected<size_t> layout_bytes = weight_data_bytes(tensor);
    if (!layout_bytes) return Status::error(label + ": " + layout_bytes.status().message());
    bytes = *layout_bytes;
    if (tensor.data.size != bytes || (bytes > 0 && tensor.data.bytes == nullptr)) {
      return Status::error(label + ": weight " + data_type_name(tensor.dtype) + " " +
                           shape_string(tensor.shape) + " " + tensor_layout_name(tensor.layout) +
                           " needs " + std::to_string(bytes) + " bytes of data, found " +
                           std::to_string(tensor.data.bytes == nullptr ? 0 : tensor.data.size));
    }
  } else if (tensor.data.bytes != nullptr || tensor.data.size != 0) {
    return Status::error(label + ": only weights carry data, but this " +
                         tensor_kind_name(tensor.kind) + " tensor has " +
                         std::to_string(tensor.data.size) + " bytes");
  }
  return Status::ok();
}

Status check_arity(const Node& node, const OpSchema& schema) {
  auto range = [](size_t lo, size_t hi) {
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  };
  if (node.inputs.size() < schema.min_inputs || node.inputs.size() > schema.max_inputs) {
    return Status::error(node_label(node) + ": takes " +
                         range(schema.min_inputs, schema.max_inputs) + " inputs, found " +
                         std::to_string(node.inputs.size()));
  }
  if (node.outputs.size() < schema.min_outputs || node.outputs.size() > schema.max_outputs) {
    return Status::error(node_label(node) + ": makes " +
                         range(schema.min_outputs, schema.max_outputs) + " outputs, found " +
                         std::to_string(node.outputs.size()));
  }
  return Status::ok();
}

Status check_node_references(const Graph& graph, const Node& node, const OpSchema* schema) {
  if (schema == nullptr) {
    return Status::error("node '" + node.name + "': unknown op type " +
                         std::to_string(static_cast<int>(node.op)));
  }
  if (schema->infer_shapes == nullptr || schema->create == nullptr) {
    return Status::error("node '" + node.name + "': op " + schema->name +
                         " is not supported by this build");
  }
  NORMRT_RETURN_IF_ERROR(check_arity(node, *schema));
  for (const std::vector<TensorId>* ids : {&node.inputs, &node.outputs}) {
    const char* role = ids == &node.inputs ? "input" : "output";
    for (size_t i = 0; i < ids->size(); ++i) {
      TensorId id = (*ids)[i];
      if (id != kNoTensor && id >= graph.tensors.size()) {
        return Status::error(node_label(node) + ": " + role + " " + std::to_string(i) +
                             " refers to tensor id " + std::to_string(id) + ", but the graph has " +
                             std::to_string(graph.tensors.size()) + " tensors");
      }
    }
  }
  // Packed weights are readable only by the linear kernels, as their W.
  const bool linear = node.op == OpType::kLinear || node.op == OpType::kFusedLinear;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    TensorId id = node.inputs[i];
    if (id == kNoTensor || graph.tensors[id].layout == TensorLayout::kRowMajor) continue;
    if (!linear || i != 1) {
      return Status::error(node_label(node) + ": input " + std::to_string(i) + " " +
                           tensor_label(graph, id) + " has layout " +
                           tensor_layout_name(graph.tensors[id].layout) +
                           ", which only the weight W of Linear / FusedLinear may have");
    }
  }
  return Status::ok();
}

// producer[id]: the index of the node writing tensor id, or kNone.
Expected<std::vector<size_t>> find_producers(const Graph& graph) {
  std::vector<size_t> producer(graph.tensors.size(), kNone);
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    const Node& node = graph.nodes[index];
    for (TensorId id : node.outputs) {
      if (id == kNoTensor) continue;
      const Tensor& tensor = graph.tensors[id];
      if (tensor.kind != TensorKind::kIntermediate) {
        return Status::error(node_label(node) + " writes " + tensor_label(graph, id) + ", a " +
                             tensor_kind_name(tensor.kind) +
                             " tensor; nodes may only write intermediates");
      }
      if (producer[id] != kNone) {
        return Status::error(tensor_label(graph, id) + " is produced twice: by " +
                             node_label(graph.nodes[producer[id]]) + " and by " + node_label(node));
      }
      producer[id] = index;
    }
  }
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (graph.tensors[id].kind == TensorKind::kIntermediate && producer[id] == kNone) {
      return Status::error(tensor_label(graph, id) + " is an intermediate that no node produces");
    }
  }
  return producer;
}

Status check_order(const Graph& graph, const std::vector<size_t>& producer) {
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    const Node& node = graph.nodes[index];
    for (TensorId id : node.inputs) {
      if (id == kNoTensor || producer[id] == kNone || producer[id] < index) continue;
      if (producer[id] == index) {
        return Status::error(node_label(node) + " reads its own output " + tensor_label(graph, id) +
                             " (a cycle)");
      }
      return Status::error(node_label(node) + " reads " + tensor_label(graph, id) + " before " +
                           node_label(graph.nodes[producer[id]]) +
                           " produces it (a cycle, or nodes out of topological order)");
    }
  }
  return Status::ok();
}

Status check_graph_io(const Graph& graph) {
  std::vector<bool> listed(graph.tensors.size(), false);
  for (TensorId id : graph.inputs) {
    if (id >= graph.tensors.size()) {
      return Status::error("graph input id " + std::to_string(id) + " is out of range (" +
                           std::to_string(graph.tensors.size()) + " tensors)");
    }
    if (graph.tensors[id].kind != TensorKind::kInput) {
      return Status::error("graph input " + tensor_label(graph, id) + " is a " +
                           tensor_kind_name(graph.tensors[id].kind) + " tensor, expected input");
    }
    if (listed[id])
      return Status::error("graph input " + tensor_label(graph, id) + " is listed twice");
    listed[id] = true;
  }
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (graph.tensors[id].kind == TensorKind::kInput && !listed[id]) {
      return Status::error(tensor_label(graph, id) +
                           " is an input tensor missing from the graph's inputs");
    }
  }
  for (TensorId id : graph.outputs) {
    if (id >= graph.tensors.size()) {
      return Status::error("graph output id " + std::to_string(id) + " is out of range (" +
                           std::to_string(graph.tensors.size()) + " tensors)");
    }
    if (graph.tensors[id].kind == TensorKind::kWeight) {
      return Status::error("graph output " + tensor_label(graph, id) + " is a weight");
    }
  }
  std::vector<bool> updated(graph.tensors.size(), false);
  for (const Graph::StateUpdate& update : graph.state_updates) {
    if (update.state >= graph.tensors.size() || update.value >= graph.tensors.size()) {
      return Status::error("state update (" + std::to_string(update.state) + " <- " +
                           std::to_string(update.value) + ") refers to a tensor id out of range (" +
                           std::to_string(graph.tensors.size()) + " tensors)");
    }
    const Tensor& state = graph.tensors[update.state];
    const Tensor& value = graph.tensors[update.value];
    const std::string what = "state update " + tensor_label(graph, update.state) + " <- " +
                             tensor_label(graph, update.value);
    if (state.kind != TensorKind::kState) {
      return Status::error(what + ": the target is a " + tensor_kind_name(state.kind) +
                           " tensor, expected state");
    }
    if (state.dtype != value.dtype || state.shape != value.shape) {
      return Status::error(what + ": the state is " + data_type_name(state.dtype) + " " +
                           shape_string(state.shape) + " but the value is " +
                           data_type_name(value.dtype) + " " + shape_string(value.shape));
    }
    if (updated[update.state]) return Status::error(what + ": the state is updated twice");
    updated[update.state] = true;
  }
  return Status::ok();
}

Status check_inferred_shapes(const Graph& graph, const Node& node, const OpSchema& schema) {
  std::vector<InferredTensor> inferred;
  NORMRT_RETURN_IF_ERROR(schema.infer_shapes(graph, node, inferred));
  if (inferred.size() != node.outputs.size()) {
    return Status::error(node_label(node) + ": shape inference gave " +
                         std::to_string(inferred.size()) + " outputs for " +
                         std::to_string(node.outputs.size()) + " (a bug in the op's schema)");
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    TensorId id = node.outputs[i];
    if (id == kNoTensor) continue;
    const Tensor& declared = graph.tensors[id];
    if (declared.dtype != inferred[i].dtype || declared.shape != inferred[i].shape) {
      return Status::error(node_label(node) + ": output " + std::to_string(i) + " '" +
                           declared.name + "' is declared " + data_type_name(declared.dtype) + " " +
                           shape_string(declared.shape) + " but the operands give " +
                           data_type_name(inferred[i].dtype) + " " +
                           shape_string(inferred[i].shape));
    }
  }
  return Status::ok();
}

}  // namespace

Status detail::graph_validate_with(const Graph& graph, detail::OpSchemaLookup lookup) {
  if (graph.max_sequence_length < 1 || graph.max_sequence_length > kMaxSequenceLength) {
    return Status::error("graph: max_sequence_length " + std::to_string(graph.max_sequence_length) +
                         " is outside [1, " + std::to_string(kMaxSequenceLength) + "]");
  }
  if (graph.tensors.size() >= kNoTensor) {
    return Status::error("graph: " + std::to_string(graph.tensors.size()) + " tensors is too many");
  }
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    NORMRT_RETURN_IF_ERROR(check_tensor(graph, id));
  }
  for (const Node& node : graph.nodes) {
    NORMRT_RETURN_IF_ERROR(check_node_references(graph, node, lookup(node.op)));
  }
  NORMRT_ASSIGN_OR_RETURN(std::vector<size_t> producer, find_producers(graph));
  NORMRT_RETURN_IF_ERROR(check_order(graph, producer));
  NORMRT_RETURN_IF_ERROR(check_graph_io(graph));
  for (const Node& node : graph.nodes) {
    NORMRT_RETURN_IF_ERROR(check_inferred_shapes(graph, node, *lookup(node.op)));
  }
  return Status::ok();
}

Status graph_validate(const Graph& graph) {
  return detail::graph_validate_with(graph, find_op_schema);
}

}  // namespace normrt
