#include "runtime/exec/batch_support.h"

#include <string>

#include "runtime/ops/op_schemas.h"

namespace normrt {
namespace {

// How a tensor is laid out in a batch.
enum class RowKind { kWeight, kTokens, kPerSequence, kNeither };

RowKind row_kind(const Tensor& tensor) {
  if (tensor.kind == TensorKind::kWeight) return RowKind::kWeight;
  const Shape& shape = tensor.shape;
  if (has_sequence_dim(shape)) {
    for (size_t i = 1; i < shape.size(); ++i)
      if (shape[i] == kSequenceDim) return RowKind::kNeither;
    return shape[0] == kSequenceDim ? RowKind::kTokens : RowKind::kNeither;
  }
  return !shape.empty() && shape[0] == 1 ? RowKind::kPerSequence : RowKind::kNeither;
}

std::string describe(const Node& node) {
  return "node '" + node.name + "' (" + op_type_name(node.op) + ")";
}

// Ops that treat each row on its own, whatever the rows are.
bool is_row_wise(OpType op) {
  switch (op) {
    case OpType::kLinear:
    case OpType::kFusedLinear:
    case OpType::kLayerNorm:
    case OpType::kRmsNorm:
    case OpType::kPRmsNorm:
    case OpType::kAdd:
    case OpType::kMul:
    case OpType::kActivation:
    case OpType::kSoftmax:
    case OpType::kL2Normalize:
    case OpType::kAbs:
      return true;
    default:
      return false;
  }
}

// "" if the node runs batched with the batch layout, else why not.
std::string node_refusal(const Graph& graph, const Node& node) {
  auto kind_of = [&](TensorId id) { return row_kind(graph.tensors[id]); };
  if (is_row_wise(node.op)) {
    // Every activation operand and output in the same layout, and an Add or
    // Mul broadcasts only a weight (a per-sequence b over token rows would
    // need a broadcast per sequence).
    RowKind first = RowKind::kWeight;
    for (const auto* ids : {&node.inputs, &node.outputs}) {
      for (TensorId id : *ids) {
        if (id == kNoTensor || kind_of(id) == RowKind::kWeight) continue;
        if (first == RowKind::kWeight) first = kind_of(id);
        if (kind_of(id) != first) return describe(node) + " mixes token rows and per-sequence rows";
      }
    }
    if ((node.op == OpType::kAdd || node.op == OpType::kMul) && node.inputs.size() == 2 &&
        kind_of(node.inputs[1]) != RowKind::kWeight &&
        graph.tensors[node.inputs[1]].shape != graph.tensors[node.inputs[0]].shape)
      return describe(node) + " broadcasts an activation";
    return "";
  }
  switch (node.op) {
    case OpType::kEmbedding:  // ids [S] → [S, D], or positions → [S, D]
      return kind_of(node.outputs[0]) == RowKind::kTokens ? "" : describe(node) + " has no S rows";
    case OpType::kAttention: {
      if (node.inputs.size() > 3 && node.inputs[3] != kNoTensor)
        return describe(node) + " has a KV cache";
      for (size_t i = 0; i < 3; ++i)
        if (kind_of(node.inputs[i]) != RowKind::kTokens)
          return describe(node) + ": q, k and v must all have S rows";
      return "";
    }
    case OpType::kMeanPool:  // mean or max, over each sequence's rows
      return kind_of(node.inputs[0]) == RowKind::kTokens
                 ? ""
                 : describe(node) + " pools rows that are not the sequence's";
    case OpType::kSlice:  // the first of S rows (CLS pooling, a classifier's first token)
      return slice_takes_first_token(graph, node) && kind_of(node.inputs[0]) == RowKind::kTokens &&
                     kind_of(node.outputs[0]) == RowKind::kPerSequence
                 ? ""
                 : describe(node) + " slices other than each sequence's first token";
    default:
      return describe(node) + " does not run batched";
  }
}

}  // namespace

BatchLayout batch_layout(const Graph& graph) {
  BatchLayout layout;
  for (const Tensor& tensor : graph.tensors) {  // the most telling reason first
    if (tensor.kind == TensorKind::kState) {
      layout.refusal = "the model keeps state ('" + tensor.name + "')";
      return layout;
    }
  }
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    const RowKind kind = row_kind(tensor);
    if (kind == RowKind::kNeither ||
        (tensor.kind == TensorKind::kInput && kind != RowKind::kTokens)) {
      layout.refusal = "tensor '" + tensor.name + "' " + shape_string(tensor.shape) +
                       " is neither S rows (S first) nor one row per sequence";
      if (tensor.kind == TensorKind::kInput)
        layout.refusal =
            "input '" + tensor.name + "' " + shape_string(tensor.shape) + " does not start with S";
      return layout;
    }
    if (kind == RowKind::kPerSequence) layout.row_tensors.push_back(id);
  }
  for (const Node& node : graph.nodes) {
    layout.refusal = node_refusal(graph, node);
    if (!layout.refusal.empty()) return layout;
  }
  return layout;
}

}  // namespace normrt
