#include "runtime/graph/graph_uses.h"

namespace normrt {

GraphUses::GraphUses(const Graph& graph)
    : readers_(graph.tensors.size()), escapes_(graph.tensors.size(), false) {
  for (size_t node = 0; node < graph.nodes.size(); ++node) {
    const std::vector<TensorId>& inputs = graph.nodes[node].inputs;
    for (size_t input = 0; input < inputs.size(); ++input) {
      if (inputs[input] != kNoTensor) readers_[inputs[input]].push_back({node, input});
    }
  }
  for (TensorId id : graph.outputs) escapes_[id] = true;
  for (const Graph::StateUpdate& update : graph.state_updates) escapes_[update.value] = true;
}

const TensorUse* GraphUses::only_reader(TensorId tensor) const {
  if (escapes_[tensor] || readers_[tensor].size() != 1) return nullptr;
  return &readers_[tensor][0];
}

}  // namespace normrt
