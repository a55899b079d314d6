#include "runtime/passes/fuse_linear_chains.h"

#include <algorithm>
#include <utility>

#include "runtime/graph/graph_uses.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {
namespace {

// Operand positions, as docs/ops.md defines them.
constexpr size_t kLinearX = 0, kLinearW = 1, kLinearBias = 2;
constexpr size_t kNormX = 0, kNormGain = 1, kNormBias = 2, kNormResidual = 3;
constexpr size_t kNormY = 0, kNormSum = 1;

TensorId operand(const Node& node, size_t index) {
  return index < node.inputs.size() ? node.inputs[index] : kNoTensor;
}
TensorId result(const Node& node, size_t index) {
  return index < node.outputs.size() ? node.outputs[index] : kNoTensor;
}

// One chain found from a Linear node: indices of the absorbed nodes and the
// operands of the fused node.
struct Chain {
  size_t linear = 0;
  std::vector<size_t> absorbed;  // in graph order, the Linear excluded
  TensorId residual = kNoTensor, sum = kNoTensor, gain = kNoTensor, norm_bias = kNoTensor;
  TensorId y = kNoTensor;
  const Node* norm = nullptr;
  const Node* activation = nullptr;
};

// The reader of `tensor` if it is `op`, reads it as operand `input`, and
// `tensor` can vanish.
const Node* next_in_chain(const Graph& graph, const GraphUses& uses, TensorId tensor, OpType op,
                          size_t* node_index) {
  const TensorUse* use = uses.only_reader(tensor);
  if (use == nullptr || graph.nodes[use->node].op != op) return nullptr;
  *node_index = use->node;
  return &graph.nodes[use->node];
}

bool same_shape(const Graph& graph, TensorId a, TensorId b) {
  return graph.tensors[a].shape == graph.tensors[b].shape &&
         graph.tensors[a].dtype == graph.tensors[b].dtype;
}

// Finds the longest legal chain starting at Linear node `linear`.
Chain find_chain(const Graph& graph, const GraphUses& uses, size_t linear) {
  Chain chain;
  chain.linear = linear;
  const Node& linear_node = graph.nodes[linear];
  TensorId current = linear_node.outputs[0];

  // (Add): t + r with r of t's full shape, in either operand order.
  if (const TensorUse* use = uses.only_reader(current);
      use != nullptr && graph.nodes[use->node].op == OpType::kAdd) {
    const Node& add = graph.nodes[use->node];
    TensorId other = add.inputs[1 - use->input];
    if (other != current && same_shape(graph, other, current)) {
      chain.absorbed.push_back(use->node);
      chain.residual = other;
      current = add.outputs[0];
    }
  }

  // (norm): reads `current` as x. Without an absorbed Add, `current` must
  // vanish; with one, `current` is the sum and may have other readers.
  for (const TensorUse& use : uses.readers(current)) {
    const Node& node = graph.nodes[use.node];
    // A spatial norm normalizes NCHW planes, not the matmul's rows.
    if (norm_op_kind(node.op) == nullptr || use.input != kNormX || is_spatial_norm(node)) continue;
    bool sole_reader = uses.only_reader(current) != nullptr;
    bool has_own_residual = operand(node, kNormResidual) != kNoTensor;
    if (chain.residual == kNoTensor) {
      if (!sole_reader) break;
      if (has_own_residual) {  // norm(t + r): the norm's residual becomes ours
        chain.residual = operand(node, kNormResidual);
        chain.sum = result(node, kNormSum);
      }
    } else {
      if (has_own_residual) break;  // (t + r1) + r2: leave it unfused
      if (!sole_reader || uses.escapes(current)) chain.sum = current;
    }
    chain.absorbed.push_back(use.node);
    chain.norm = &node;
    chain.gain = operand(node, kNormGain);
    chain.norm_bias = operand(node, kNormBias);
    current = result(node, kNormY);
    break;
  }

  // (Activation)
  size_t activation_index = 0;
  if (const Node* activation =
          next_in_chain(graph, uses, current, OpType::kActivation, &activation_index)) {
    chain.absorbed.push_back(activation_index);
    chain.activation = activation;
    current = activation->outputs[0];
  }
  chain.y = current;
  std::sort(chain.absorbed.begin(), chain.absorbed.end());
  return chain;
}

// Other readers of the sum must run after the fused node's place.
bool sum_readers_follow(const Graph& graph, const GraphUses& uses, const Chain& chain) {
  (void)graph;
  if (chain.sum == kNoTensor) return true;
  size_t place = chain.absorbed.back();
  for (const TensorUse& use : uses.readers(chain.sum)) {
    bool absorbed =
        std::find(chain.absorbed.begin(), chain.absorbed.end(), use.node) != chain.absorbed.end();
    if (!absorbed && use.node < place) return false;
  }
  return true;
}

Node make_fused_node(const Graph& graph, const Chain& chain) {
  const Node& linear = graph.nodes[chain.linear];
  Node fused;
  fused.name = linear.name + "+fused";
  fused.op = OpType::kFusedLinear;
  fused.inputs = {operand(linear, kLinearX),
                  operand(linear, kLinearW),
                  operand(linear, kLinearBias),
                  chain.residual,
                  chain.gain,
                  chain.norm_bias};
  fused.outputs = {chain.y, chain.sum};
  while (!fused.outputs.empty() && fused.outputs.back() == kNoTensor) fused.outputs.pop_back();
  if (chain.norm != nullptr) {
    copy_norm_attributes(*chain.norm, fused);  // a row norm: "axes" is absent or "last"
  }
  if (chain.activation != nullptr) {
    for (const char* name : {"activation", "negative_slope"}) {
      if (const AttributeValue* value = chain.activation->find_attribute(name)) {
        fused.set_attribute(name, *value);
      }
    }
  }
  return fused;
}

}  // namespace

Expected<FusionReport> fuse_linear_chains(Graph& graph) {
  FusionReport report;
  GraphUses uses(graph);
  std::vector<bool> removed(graph.nodes.size(), false);
  std::vector<std::pair<size_t, Node>> replacements;  // (place, fused node)

  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    if (graph.nodes[index].op != OpType::kLinear || removed[index]) continue;
    Chain chain = find_chain(graph, uses, index);
    if (chain.absorbed.empty() || !sum_readers_follow(graph, uses, chain)) continue;
    bool overlaps = std::any_of(chain.absorbed.begin(), chain.absorbed.end(),
                                [&](size_t node) { return removed[node]; });
    if (overlaps) continue;
    replacements.emplace_back(chain.absorbed.back(), make_fused_node(graph, chain));
    removed[index] = true;
    for (size_t node : chain.absorbed) removed[node] = true;
    report.fused_nodes += 1;
    report.removed_nodes += chain.absorbed.size();
  }
  if (replacements.empty()) return report;

  std::vector<Node> nodes;
  nodes.reserve(graph.nodes.size());
  size_t next_replacement = 0;
  std::sort(replacements.begin(), replacements.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    if (next_replacement < replacements.size() && replacements[next_replacement].first == index) {
      nodes.push_back(std::move(replacements[next_replacement].second));
      ++next_replacement;
    } else if (!removed[index]) {
      nodes.push_back(std::move(graph.nodes[index]));
    }
  }
  graph.nodes = std::move(nodes);
  return report;
}

}  // namespace normrt
