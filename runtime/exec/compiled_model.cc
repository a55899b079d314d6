#include "runtime/exec/compiled_model.h"

#include <string>
#include <utility>

#include "runtime/passes/fold_norm_affine.h"
#include "runtime/passes/fuse_conv_chains.h"
#include "runtime/passes/fuse_linear_chains.h"
#include "runtime/passes/prune_tensors.h"
#include "runtime/validate/graph_validate.h"

namespace normrt {
namespace {

Expected<Isa> choose_isa(const std::string& name) {
  if (name.empty()) return selected_isa();
  Expected<Isa> isa = isa_from_name(name);
  if (!isa) return isa;
  NORMRT_RETURN_IF_ERROR(check_isa_runnable(*isa));
  return isa;
}

TensorInfo tensor_info(const Tensor& tensor) {
  return {tensor.name, data_type_name(tensor.dtype), tensor.shape};
}

// Ops whose result depends on the session position.
bool reads_position(const Node& node) {
  if (node.op == OpType::kAttention) {  // with its KV cache (operands 3 and 4)
    return node.inputs.size() > 3 && node.inputs[3] != kNoTensor;
  }
  if (node.op == OpType::kRope) return true;
  if (node.op == OpType::kEmbedding) {
    Expected<int64_t> positions = node.int_attribute("positions", 0);
    return positions && *positions != 0;
  }
  return false;
}

Status run_passes(Graph& graph, const ModelOptions& options, PassSummary& summary) {
  summary.nodes_before = graph.nodes.size();
  if (options.fuse) {
    NORMRT_ASSIGN_OR_RETURN(FusionReport fused, fuse_linear_chains(graph));
    summary.fused_linear_nodes = fused.fused_nodes;
    NORMRT_ASSIGN_OR_RETURN(ConvFusionReport convs, fuse_conv_chains(graph));
    summary.fused_conv_nodes = convs.fused_nodes;
  }
  if (options.fold_norm_affine) {
    NORMRT_ASSIGN_OR_RETURN(FoldReport folded, fold_norm_affine(graph));
    summary.folded_norms = folded.folded_norms;
  }
  prune_tensors(graph);
  summary.nodes_after = graph.nodes.size();
  // The passes promise valid graphs; checking costs little and catches a pass bug at load.
  Status valid = graph_validate(graph);
  if (!valid) return Status::error("after the graph passes: " + valid.message());
  return Status::ok();
}

}  // namespace

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

Expected<std::shared_ptr<const Model>> compile_model(Graph graph, const ModelOptions& options) {
  auto impl = std::make_unique<Model::Impl>();
  NORMRT_ASSIGN_OR_RETURN(Isa isa, choose_isa(options.isa));
  impl->isa = isa;

  NORMRT_RETURN_IF_ERROR(graph_validate(graph));
  NORMRT_RETURN_IF_ERROR(run_passes(graph, options, impl->passes));

  std::vector<size_t> workspace;
  for (const Node& node : graph.nodes) {
    const OpSchema* schema = find_op_schema(node.op);
    if (schema == nullptr || schema->create == nullptr) {  // graph_validate() rejects these
      return Status::error("node '" + node.name + "': op " + op_type_name(node.op) +
                           " is not supported by this build");
    }
    NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                            schema->create(OpBuildContext{graph, node, isa}));
    workspace.push_back(kernel->workspace_bytes());
    impl->passes.weight_copy_bytes += kernel->weight_copy_bytes();
    impl->kernels.push_back(std::move(kernel));
    impl->uses_position |= reads_position(node);
  }
  NORMRT_ASSIGN_OR_RETURN(MemoryPlan plan, plan_memory(graph, workspace));
  impl->plan = std::move(plan);
  impl->passes.arena_bytes = impl->plan.arena_bytes;
  impl->passes.unshared_bytes = impl->plan.unshared_bytes;

  for (TensorId id : graph.inputs) impl->inputs.push_back(tensor_info(graph.tensors[id]));
  for (TensorId id : graph.outputs) impl->outputs.push_back(tensor_info(graph.tensors[id]));
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (has_sequence_dim(graph.tensors[id].shape)) impl->sequence_tensors.push_back(id);
    if (graph.tensors[id].kind == TensorKind::kState) {
      impl->state_tensors.push_back(id);
      impl->states.push_back(tensor_info(graph.tensors[id]));
    }
  }
  impl->batch = batch_layout(graph);
  impl->graph = std::move(graph);
  return std::shared_ptr<const Model>(std::make_shared<Model>(std::move(impl)));
}

const std::vector<TensorInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<TensorInfo>& Model::states() const { return impl_->states; }
size_t Model::max_sequence_length() const {
  return static_cast<size_t>(impl_->graph.max_sequence_length);
}
std::string_view Model::batch_refusal() const { return impl_->batch.refusal; }
std::string_view Model::isa() const { return isa_name(impl_->isa); }
const PassSummary& Model::passes() const { return impl_->passes; }

std::string Model::metadata(std::string_view key) const {
  for (const Attribute& entry : impl_->graph.metadata) {
    if (entry.name != key) continue;
    if (const auto* text = std::get_if<std::string>(&entry.value)) return *text;
    if (const auto* integer = std::get_if<int64_t>(&entry.value)) return std::to_string(*integer);
    if (const auto* real = std::get_if<double>(&entry.value)) return std::to_string(*real);
    return "";
  }
  return "";
}

}  // namespace normrt
