#include "models/transformer/graph_split.h"

#include <algorithm>

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

}  // namespace normrt
