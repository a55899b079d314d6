#include "models/transformer/graph_split.h"

#include <algorithm>
#include <vector>

#include "runtime/passes/prune_tensors.h"

namespace normrt {

void cut_to_input(Graph& graph, TensorId tensor, const std::string& name) {
  auto produces = [&](const Node& node) {
    return std::find(node.outputs.begin(), node.outputs.end(), tensor) != node.outputs.end();
  };
  graph.nodes.erase(std::remove_if(graph.nodes.begin(), graph.nodes.end(), produces),
                    graph.nodes.end());
  Tensor& t = graph.tensors[tensor];
  t.kind = TensorKind::kInput;
  t.name = name;
  graph.inputs.push_back(tensor);
}

void keep_only_needed(Graph& graph) {
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
