#include "tools/bench/replace_norm.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

bool known_kind(NormKind kind) { return norm_op_type(kind) != OpType::kCount; }

// How a node normalizes, as far as this pass is concerned.
enum class NormHolder { kNone, kNormOp, kFused, kCell };

NormHolder norm_holder(const Node& node) {
  if (norm_op_kind(node.op) != nullptr) return NormHolder::kNormOp;
  if (!takes_norm_attribute(node.op)) return NormHolder::kNone;
  const AttributeValue* norm = node.find_attribute("norm");
  const auto* name = norm != nullptr ? std::get_if<std::string>(norm) : nullptr;
  // A non-string "norm" is left for validation to reject; "none" normalizes nothing.
  if (name == nullptr || *name == "none") return NormHolder::kNone;
  return node.op == OpType::kFusedLinear || node.op == OpType::kConv2d ? NormHolder::kFused
                                                                       : NormHolder::kCell;
}

// ⌊p·n⌋ ≥ 1 for the node's normalized row of n values (the kernel's own count).
Status check_partial_count(const Graph& graph, const Node& node, const NormReplacement& target) {
  if (target.kind != NormKind::kPRmsNorm) return Status::ok();
  if (node.outputs.empty() || node.outputs[0] == kNoTensor ||
      node.outputs[0] >= graph.tensors.size()) {
    return Status::ok();  // a malformed node: graph validation names it
  }
  const Shape& shape = graph.tensors[node.outputs[0]].shape;
  if (shape.empty() || shape.back() < 1) return Status::ok();
  NormParams params;
  params.kind = NormKind::kPRmsNorm;
  params.p = target.p;
  // A spatial norm (and Conv2d's) normalizes planes of H·W values.
  const bool planes = (is_spatial_norm(node) || node.op == OpType::kConv2d) && shape.size() == 4;
  const auto n = static_cast<size_t>(planes ? shape[2] * shape[3] : shape.back());
  if (norm_stat_count(params, n) == 0) {
    return node_error(node, "pRMSNorm with p = " + message_number(target.p) +
                                " over rows of n = " + std::to_string(n) +
                                " values keeps floor(p·n) = 0 of them (p must be at least 1/n = " +
                                message_number(1.0 / double(n)) + ")");
  }
  return Status::ok();
}

}  // namespace

Expected<NormReplacement> norm_replacement(std::string_view kind, double p) {
  NormReplacement target;
  target.p = p;
  NORMRT_ASSIGN_OR_RETURN(target.kind, norm_kind_from_name(kind));
  if (target.kind == NormKind::kPRmsNorm && !(p > 0.0 && p <= 1.0)) {
    return Status::error("pRMSNorm's p must be in (0, 1], found " + message_number(p));
  }
  if (target.kind != NormKind::kPRmsNorm) target.p = 1.0;
  return target;
}

std::string norm_replacement_label(const NormReplacement& target) {
  std::string label = norm_kind_name(target.kind);
  if (target.kind == NormKind::kPRmsNorm) label += ":" + message_number(target.p);
  return label;
}

Expected<ReplaceNormReport> replace_norm(Graph& graph, const NormReplacement& target) {
  if (!known_kind(target.kind)) {
    return Status::error("replace_norm: unknown norm kind " +
                         std::to_string(static_cast<int>(target.kind)));
  }
  if (target.kind == NormKind::kPRmsNorm && !(target.p > 0.0 && target.p <= 1.0)) {
    return Status::error("replace_norm: pRMSNorm's p must be in (0, 1], found " +
                         message_number(target.p));
  }
  // Every check before any change: an error leaves the graph as it was.
  for (const Node& node : graph.nodes) {
    if (norm_holder(node) == NormHolder::kNone) continue;
    if (Status s = check_partial_count(graph, node, target); !s) {
      return Status::error("replace_norm to " + norm_replacement_label(target) + ": " +
                           s.message());
    }
  }

  std::vector<Node> original_nodes = graph.nodes;
  std::vector<Attribute> original_metadata = graph.metadata;
  std::vector<size_t> rewritten;
  ReplaceNormReport report;
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    Node& node = graph.nodes[index];
    const NormHolder site = norm_holder(node);
    if (site != NormHolder::kNone) rewritten.push_back(index);
    switch (site) {
      case NormHolder::kNone:
        continue;
      case NormHolder::kNormOp:
        node.op = norm_op_type(target.kind);
        set_norm_kind_attributes(node.attributes, target.kind, target.p, /*with_norm_name=*/false);
        ++report.norm_nodes;
        break;
      case NormHolder::kFused:
        set_norm_kind_attributes(node.attributes, target.kind, target.p, /*with_norm_name=*/true);
        ++report.fused_nodes;
        break;
      case NormHolder::kCell:
        set_norm_kind_attributes(node.attributes, target.kind, target.p, /*with_norm_name=*/true);
        ++report.recurrent_cells;
        break;
    }
  }
  if (report.total() == 0) return report;
  for (const Attribute& entry : graph.metadata) {
    if (entry.name != "norm") continue;
    set_norm_kind_attributes(graph.metadata, target.kind, target.p, /*with_norm_name=*/true);
    break;
  }

  // Each rewritten node against its (new) op's own checks; nothing else
  // changed. Not graph_validate(): a graph between passes may hold tensors
  // the fusion orphaned, which only prune_tensors() removes.
  std::vector<InferredTensor> outputs;
  for (size_t index : rewritten) {
    const Node& node = graph.nodes[index];
    const OpSchema* schema = find_op_schema(node.op);
    Status valid = schema != nullptr ? schema->infer_shapes(graph, node, outputs)
                                     : node_error(node, "op not supported by this build");
    if (!valid) {
      graph.nodes = std::move(original_nodes);
      graph.metadata = std::move(original_metadata);
      return Status::error("replace_norm to " + norm_replacement_label(target) + ": " +
                           valid.message());
    }
  }
  return report;
}

}  // namespace normrt
