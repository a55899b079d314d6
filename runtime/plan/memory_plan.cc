#include "runtime/plan/memory_plan.h"

#include <algorithm>
#include <string>

namespace normrt {
namespace {

size_t round_up(size_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

size_t tensor_bytes(const Graph& graph, const Tensor& tensor) {
  return shape_elements(tensor.shape, static_cast<size_t>(graph.max_sequence_length)) *
         data_type_size(tensor.dtype);
}

// [first, last] steps during which an intermediate must keep its value.
struct Lifetime {
  TensorId tensor;
  size_t first, last, bytes;
};

std::vector<Lifetime> intermediate_lifetimes(const Graph& graph) {
  const size_t end = graph.nodes.size();
  std::vector<size_t> first(graph.tensors.size(), end), last(graph.tensors.size(), 0);
  for (size_t step = 0; step < graph.nodes.size(); ++step) {
    for (TensorId id : graph.nodes[step].outputs) {
      if (id != kNoTensor) first[id] = std::min(first[id], step);
      if (id != kNoTensor) last[id] = std::max(last[id], step);
    }
    for (TensorId id : graph.nodes[step].inputs) {
      if (id != kNoTensor) last[id] = std::max(last[id], step);
    }
  }
  for (TensorId id : graph.outputs) last[id] = end;
  for (const Graph::StateUpdate& update : graph.state_updates) last[update.value] = end;

  std::vector<Lifetime> lifetimes;
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    if (tensor.kind != TensorKind::kIntermediate || first[id] == end) continue;
    lifetimes.push_back({id, first[id], last[id], round_up(tensor_bytes(graph, tensor))});
  }
  return lifetimes;
}

}  // namespace

Expected<MemoryPlan> plan_memory(const Graph& graph,
                                 const std::vector<size_t>& node_workspace_bytes) {
  if (node_workspace_bytes.size() != graph.nodes.size()) {
    return Status::error("plan_memory: " + std::to_string(node_workspace_bytes.size()) +
                         " workspace sizes for " + std::to_string(graph.nodes.size()) + " nodes");
  }
  MemoryPlan plan;
  plan.offsets.assign(graph.tensors.size(), MemoryPlan::kNotPlaced);

  std::vector<Lifetime> lifetimes = intermediate_lifetimes(graph);
  std::stable_sort(lifetimes.begin(), lifetimes.end(),
                   [](const Lifetime& a, const Lifetime& b) { return a.bytes > b.bytes; });
  std::vector<const Lifetime*> placed;
  for (const Lifetime& tensor : lifetimes) {
    plan.unshared_bytes += tensor.bytes;
    // Slots of placed tensors alive at the same time, by offset; take the
    // lowest gap that fits.
    std::vector<std::pair<size_t, size_t>> busy;  // [begin, end) bytes
    for (const Lifetime* other : placed) {
      if (other->first <= tensor.last && tensor.first <= other->last) {
        size_t offset = plan.offsets[other->tensor];
        busy.emplace_back(offset, offset + other->bytes);
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (begin >= offset + tensor.bytes) break;
      offset = std::max(offset, end);
    }
    plan.offsets[tensor.tensor] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + tensor.bytes);
    placed.push_back(&tensor);
  }

  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    const Tensor& tensor = graph.tensors[id];
    if (tensor.kind != TensorKind::kState) continue;
    plan.offsets[id] = plan.state_bytes;
    plan.state_bytes += round_up(tensor_bytes(graph, tensor));
  }
  for (size_t bytes : node_workspace_bytes) {
    plan.workspace_bytes = std::max(plan.workspace_bytes, round_up(bytes));
  }
  return plan;
}

}  // namespace normrt
