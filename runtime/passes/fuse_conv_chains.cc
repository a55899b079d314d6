#include "runtime/passes/fuse_conv_chains.h"

#include <string>
#include <utility>
#include <vector>

#include "runtime/graph/graph_uses.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {
namespace {

// Operand positions, as docs/ops.md defines them.
constexpr size_t kConvGain = 3, kConvNormBias = 4;
constexpr size_t kNormX = 0, kNormGain = 1, kNormBias = 2, kNormResidual = 3;

TensorId operand(const Node& node, size_t index) {
  return index < node.inputs.size() ? node.inputs[index] : kNoTensor;
}

bool has_string(const Node& node, const char* name, const char* value) {
  const AttributeValue* attribute = node.find_attribute(name);
  const auto* text = attribute != nullptr ? std::get_if<std::string>(attribute) : nullptr;
  return text != nullptr && *text == value;
}

// The reader of `tensor` if it is `op`, reads it as operand 0, and `tensor` can vanish.
const Node* next_in_chain(const Graph& graph, const GraphUses& uses, TensorId tensor, OpType op,
                          size_t* node_index) {
  const TensorUse* use = uses.only_reader(tensor);
  if (use == nullptr || use->input != 0 || graph.nodes[use->node].op != op) return nullptr;
  *node_index = use->node;
  return &graph.nodes[use->node];
}

// The spatial norm reading `tensor`, if it can be absorbed.
const Node* next_norm(const Graph& graph, const GraphUses& uses, TensorId tensor,
                      size_t* node_index) {
  const TensorUse* use = uses.only_reader(tensor);
  if (use == nullptr || use->input != kNormX) return nullptr;
  const Node& node = graph.nodes[use->node];
  if (norm_op_kind(node.op) == nullptr || !is_spatial_norm(node)) return nullptr;
  if (operand(node, kNormResidual) != kNoTensor) return nullptr;  // validation rejects it anyway
  if (node.outputs.size() > 1 && node.outputs[1] != kNoTensor) return nullptr;
  *node_index = use->node;
  return &node;
}

}  // namespace

Expected<ConvFusionReport> fuse_conv_chains(Graph& graph) {
  ConvFusionReport report;
  GraphUses uses(graph);
  std::vector<bool> removed(graph.nodes.size(), false);
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    Node& conv = graph.nodes[index];
    if (conv.op != OpType::kConv2d || removed[index]) continue;
    const bool normalizes =
        conv.find_attribute("norm") != nullptr && !has_string(conv, "norm", "none");
    const bool activates =
        conv.find_attribute("activation") != nullptr && !has_string(conv, "activation", "none");
    if (normalizes || activates || conv.outputs.empty()) continue;

    TensorId current = conv.outputs[0];
    size_t norm_index = 0, activation_index = 0;
    const Node* norm = next_norm(graph, uses, current, &norm_index);
    if (norm != nullptr) current = norm->outputs[0];
    const Node* activation =
        next_in_chain(graph, uses, current, OpType::kActivation, &activation_index);
    if (norm == nullptr && activation == nullptr) continue;

    // The Conv2d takes the place of the chain's last node; nothing between
    // reads the intermediates (each has one reader), so moving it is safe.
    Node fused = conv;
    fused.name = conv.name + "+fused";
    if (norm != nullptr) {
      fused.inputs.resize(kConvNormBias + 1, kNoTensor);
      fused.inputs[kConvGain] = operand(*norm, kNormGain);
      fused.inputs[kConvNormBias] = operand(*norm, kNormBias);
      while (fused.inputs.back() == kNoTensor) fused.inputs.pop_back();
      copy_norm_attributes(*norm, fused);
      removed[norm_index] = true;
      report.removed_nodes += 1;
    }
    if (activation != nullptr) {
      for (const char* name : {"activation", "negative_slope"}) {
        if (const AttributeValue* value = activation->find_attribute(name)) {
          fused.set_attribute(name, *value);
        }
      }
      removed[activation_index] = true;
      report.removed_nodes += 1;
    }
    fused.outputs = {current};
    if (activation != nullptr) fused.outputs = {activation->outputs[0]};
    const size_t place = activation != nullptr ? activation_index : norm_index;
    graph.nodes[place] = std::move(fused);
    removed[place] = false;
    removed[index] = true;
    report.fused_nodes += 1;
  }
  if (report.fused_nodes == 0) return report;
  std::vector<Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    if (!removed[index]) nodes.push_back(std::move(graph.nodes[index]));
  }
  graph.nodes = std::move(nodes);
  return report;
}

}  // namespace normrt
