#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include "base/huge_pages.h"
#include "runtime/exec/session_impl.h"
#include "runtime/exec/thread_limit.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt {
namespace {

// The norm a node applies, for the profile ("" if none).
std::string_view op_norm_kind(const Node& node) {
  if (const char* kind = norm_op_kind(node.op)) return kind;
  if (node.op != OpType::kFusedLinear && node.op != OpType::kConv2d) return "";
  const AttributeValue* norm = node.find_attribute("norm");
  const auto* kind = norm ? std::get_if<std::string>(norm) : nullptr;
  return kind == nullptr || *kind == "none" ? "" : std::string_view(*kind);
}

// The view of tensor `id` with S = 1, data placed per the memory plan. The
// plan is for one sequence; for `max_batch` every size and offset is that
// many times larger (a valid plan still: disjoint slots stay disjoint).
TensorView initial_view(const Model::Impl& model, TensorId id, std::byte* arena, std::byte* state,
                        size_t max_batch) {
  const Tensor& tensor = model.graph.tensors[id];
  TensorView view;
  view.dtype = tensor.dtype;
  view.rank = static_cast<uint32_t>(tensor.shape.size());
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    view.dims[i] = tensor.shape[i] == kSequenceDim ? 1 : static_cast<size_t>(tensor.shape[i]);
  }
  switch (tensor.kind) {
    case TensorKind::kWeight:
      view.data = const_cast<std::byte*>(tensor.data.bytes);  // kernels never write weights
      break;
    case TensorKind::kIntermediate:
      view.data = arena + model.plan.offsets[id] * max_batch;
      break;
    case TensorKind::kState:
      view.data = state + model.plan.offsets[id];
      break;
    case TensorKind::kInput:
      break;  // bound by set_input()
  }
  return view;
}

// max_batch ≥ 1, bounded, and above 1 only for a model that runs batches.
Status check_max_batch(const Model::Impl& model, size_t max_batch) {
  constexpr size_t kMaxBatch = 65536;  // a bound on absurd values, as for threads
  if (max_batch == 0 || max_batch > kMaxBatch)
    return Status::error("Session::create: max_batch = " + std::to_string(max_batch) +
                         " is outside [1, " + std::to_string(kMaxBatch) + "]");
  const size_t largest = std::max(model.plan.arena_bytes, model.plan.workspace_bytes);
  if (largest > SIZE_MAX / max_batch)
    return Status::error("Session::create: max_batch = " + std::to_string(max_batch) +
                         " times the activation memory overflows");
  if (max_batch > 1 && !model.batch.refusal.empty())
    return Status::error("Session::create: max_batch = " + std::to_string(max_batch) +
                         ", but the model runs one sequence at a time: " + model.batch.refusal);
  return Status::ok();
}

Status out_of_memory(const char* what, size_t bytes) {
  return Status::error(std::string("Session::create: cannot allocate ") + std::to_string(bytes) +
                       " bytes for the " + what);
}

}  // namespace

void AlignedFree::operator()(std::byte* bytes) const { std::free(bytes); }

AlignedBytes allocate_aligned(size_t bytes) {
  if (bytes > SIZE_MAX - kHugePageBytes) return nullptr;
  const size_t size = std::max<size_t>(
      (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment, kArenaAlignment);
  std::byte* memory = size >= kHugePageBytes
                          ? allocate_huge_pages(size)
                          : static_cast<std::byte*>(std::aligned_alloc(kArenaAlignment, size));
  if (memory != nullptr) std::memset(memory, 0, size);
  return AlignedBytes(memory);
}

void Session::Impl::publish(TensorId tensor, const TensorView& view) {
  views[tensor] = view;
  for (size_t index : copies[tensor]) step_views[index] = view;
}

void Session::Impl::set_sequence_length(size_t length, size_t sequences, size_t rows) {
  if (length == sequence_length && sequences == batch && rows == token_rows) return;
  sequence_length = length;
  batch = sequences;
  token_rows = rows;
  for (TensorId id : compiled->sequence_tensors) {
    const Shape& shape = compiled->graph.tensors[id].shape;
    TensorView view = views[id];
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == kSequenceDim) view.dims[i] = i == 0 ? rows : length;
    }
    publish(id, view);
  }
  // Empty unless the model runs batches (batch_support.h).
  for (TensorId id : compiled->batch.row_tensors) {
    TensorView view = views[id];
    view.dims[0] = sequences;
    publish(id, view);
  }
}

Expected<std::unique_ptr<Session::Impl>> make_session_impl(std::shared_ptr<const Model> model,
                                                           const SessionOptions& options) {
  if (model == nullptr) return Status::error("Session::create: the model is null");
  NORMRT_ASSIGN_OR_RETURN(const size_t threads, resolve_session_threads(options.threads));
  const Model::Impl& compiled = model->impl();
  NORMRT_RETURN_IF_ERROR(check_max_batch(compiled, options.max_batch));
  auto impl = std::make_unique<Session::Impl>();
  impl->threads = threads;
  impl->compiled = &compiled;
  impl->model = std::move(model);
  const size_t max_batch = options.max_batch;
  impl->max_batch = max_batch;
  impl->sequence_lengths.assign(max_batch, 0);
  // Workspaces grow at most linearly with the rows (B·S ≤ max_batch·S_max).
  impl->arena = allocate_aligned(compiled.plan.arena_bytes * max_batch);
  impl->state = allocate_aligned(compiled.plan.state_bytes);
  impl->workspace = allocate_aligned(compiled.plan.workspace_bytes * max_batch);
  for (auto [memory, what, bytes] :
       {std::tuple{impl->arena.get(), "activations", compiled.plan.arena_bytes * max_batch},
        {impl->state.get(), "state (RNN states, KV caches)", compiled.plan.state_bytes},
        {impl->workspace.get(), "workspace", compiled.plan.workspace_bytes * max_batch}}) {
    if (memory == nullptr) return out_of_memory(what, bytes);
  }

  const Graph& graph = compiled.graph;
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    impl->views.push_back(
        initial_view(compiled, id, impl->arena.get(), impl->state.get(), max_batch));
  }
  impl->copies.resize(graph.tensors.size());
  auto add_operand = [&](TensorId id) {
    if (id != kNoTensor) impl->copies[id].push_back(impl->step_views.size());
    impl->step_views.push_back(id == kNoTensor ? TensorView{} : impl->views[id]);
  };
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    const Node& node = graph.nodes[index];
    Step step;
    step.kernel = compiled.kernels[index].get();
    step.first_view = impl->step_views.size();
    step.input_count = node.inputs.size();
    step.output_count = node.outputs.size();
    for (TensorId id : node.inputs) add_operand(id);
    for (TensorId id : node.outputs) add_operand(id);
    impl->op_states.push_back(step.kernel->create_session_state_with_threads(threads));
    step.session_state = impl->op_states.back().get();
    impl->steps.push_back(step);
    impl->profile.push_back(
        {node.name, op_type_name(node.op), std::string(op_norm_kind(node)), 0, 0});
  }
  impl->bound_length.assign(graph.inputs.size(), 0);
  impl->bound_batch.assign(graph.inputs.size(), 1);
  impl->bound_data.assign(graph.inputs.size(), nullptr);
  impl->sequence_offsets.assign(max_batch + 1, 0);
  const bool batches = compiled.batch.refusal.empty();
  for (TensorId id : graph.inputs) {
    const Tensor& input = graph.tensors[id];
    const size_t elements = shape_elements(input.shape, graph.max_sequence_length) * max_batch;
    impl->converted_inputs.push_back(input.dtype == DataType::kI32
                                         ? allocate_aligned(elements * sizeof(int32_t))
                                         : AlignedBytes());
    impl->packed_inputs.push_back(batches ? allocate_aligned(elements * data_type_size(input.dtype))
                                          : AlignedBytes());
    if ((input.dtype == DataType::kI32 && impl->converted_inputs.back() == nullptr) ||
        (batches && impl->packed_inputs.back() == nullptr)) {
      return out_of_memory(("input '" + input.name + "'").c_str(),
                           elements * data_type_size(input.dtype));
    }
  }
  impl->profiling = options.profile;
  if (threads > 1) {
    impl->pool = std::make_unique<ThreadPool>(threads);
    impl->threads = impl->pool->size();  // fewer if the OS refused a thread
  }
  return impl;
}

}  // namespace normrt
