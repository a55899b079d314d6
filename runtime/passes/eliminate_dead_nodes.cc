#include "runtime/passes/eliminate_dead_nodes.h"

#include <algorithm>
#include <vector>

#include "runtime/passes/prune_tensors.h"

namespace normrt {

void eliminate_dead_nodes(Graph& graph) {
  std::vector<bool> needed(graph.tensors.size(), false);
  for (TensorId id : graph.outputs) needed[id] = true;
  for (const Graph::StateUpdate& update : graph.state_updates) needed[update.value] = true;
  // Nodes are in execution order: walking backwards sees every consumer
  // before its producer.
  std::vector<bool> live(graph.nodes.size(), false);
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const Node& node = graph.nodes[i];
    live[i] = std::any_of(node.outputs.begin(), node.outputs.end(),
                          [&](TensorId id) { return id != kNoTensor && needed[id]; });
    if (!live[i]) continue;
    for (TensorId id : node.inputs) {
      if (id != kNoTensor) needed[id] = true;
    }
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (live[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
  graph.inputs.erase(std::remove_if(graph.inputs.begin(), graph.inputs.end(),
                                    [&](TensorId id) { return !needed[id]; }),
                     graph.inputs.end());
  prune_tensors(graph);
}

}  // namespace normrt
