#include "runtime/passes/prune_tensors.h"

#include <utility>
#include <vector>

namespace normrt {

size_t prune_tensors(Graph& graph) {
  std::vector<bool> used(graph.tensors.size(), false);
  auto mark = [&](TensorId id) {
    if (id != kNoTensor) used[id] = true;
  };
  for (const Node& node : graph.nodes) {
    for (TensorId id : node.inputs) mark(id);
    for (TensorId id : node.outputs) mark(id);
  }
  for (TensorId id : graph.inputs) mark(id);
  for (TensorId id : graph.outputs) mark(id);
  for (const Graph::StateUpdate& update : graph.state_updates) {
    mark(update.state);
    mark(update.value);
  }

  std::vector<TensorId> new_id(graph.tensors.size(), kNoTensor);
  std::vector<Tensor> kept;
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (!used[id]) continue;
    new_id[id] = static_cast<TensorId>(kept.size());
    kept.push_back(std::move(graph.tensors[id]));
  }
  size_t removed = graph.tensors.size() - kept.size();
  graph.tensors = std::move(kept);
  auto remap = [&](TensorId& id) {
    if (id != kNoTensor) id = new_id[id];
  };
  for (Node& node : graph.nodes) {
    for (TensorId& id : node.inputs) remap(id);
    for (TensorId& id : node.outputs) remap(id);
  }
  for (TensorId& id : graph.inputs) remap(id);
  for (TensorId& id : graph.outputs) remap(id);
  for (Graph::StateUpdate& update : graph.state_updates) {
    remap(update.state);
    remap(update.value);
  }
  return removed;
}

}  // namespace normrt
