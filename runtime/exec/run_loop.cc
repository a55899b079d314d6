// Session::run(): the whole inference loop. Everything it needs was prepared
// at load (kernels, memory plan) and at session creation (views, steps), so
// a run is: settle S, walk the steps, carry the state over.
#include <chrono>
#include <cstring>
#include <string>

#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

struct RunShape {
  size_t length = 1, batch = 1;
};

// S and B of this run, from the bound inputs whose shapes have S (1 if none do).
Expected<RunShape> run_shape(const Session::Impl& session) {
  const Graph& graph = session.compiled->graph;
  size_t length = 0, batch = 1;
  TensorId first = kNoTensor;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    TensorId id = graph.inputs[i];
    if (session.views[id].data == nullptr) {
      return Status::error("run: input '" + graph.tensors[id].name + "' is not set");
    }
    const size_t this_length = session.bound_length[i];
    if (this_length == 0) continue;  // no S in this input's shape
    if (length != 0 && this_length != length) {
      return Status::error("run: inputs disagree on the sequence length: '" +
                           graph.tensors[first].name + "' has " + std::to_string(length) + ", '" +
                           graph.tensors[id].name + "' has " + std::to_string(this_length));
    }
    if (first != kNoTensor && session.bound_batch[i] != batch) {
      return Status::error("run: inputs disagree on the batch: '" + graph.tensors[first].name +
                           "' has " + std::to_string(batch) + " sequences, '" +
                           graph.tensors[id].name + "' has " +
                           std::to_string(session.bound_batch[i]));
    }
    length = this_length;
    batch = session.bound_batch[i];
    first = id;
  }
  RunShape shape{length == 0 ? size_t{1} : length, batch};
  if (session.mask_length != 0 &&
      (session.mask_length != shape.length || session.mask_batch != shape.batch)) {
    return Status::error("run: the attention mask is [" + std::to_string(session.mask_batch) +
                         ", " + std::to_string(session.mask_length) + "] but the inputs are [" +
                         std::to_string(shape.batch) + ", " + std::to_string(shape.length) +
                         "] (set a new mask, or clear it with a null mask)");
  }
  return shape;
}

}  // namespace

Status Session::run() {
  Impl& session = *impl_;
  NORMRT_ASSIGN_OR_RETURN(RunShape shape, run_shape(session));
  const size_t length = shape.length;
  NORMRT_ASSIGN_OR_RETURN(size_t rows, pack_batch(session, shape.batch, length));
  session.set_sequence_length(length, shape.batch, rows);

  OpRunContext context;
  context.sequence_length = length;
  context.batch = shape.batch;
  // Only the ops of a model that runs batches read the offsets.
  if (session.compiled->batch.refusal.empty())
    context.sequence_offsets = session.sequence_offsets.data();
  context.position = session.position;
  context.pool = session.pool.get();
  context.workspace = session.workspace.get();
  for (size_t index = 0; index < session.steps.size(); ++index) {
    const Step& step = session.steps[index];
    context.inputs = &session.step_views[step.first_view];
    context.input_count = step.input_count;
    context.outputs = context.inputs + step.input_count;
    context.output_count = step.output_count;
    context.session_state = step.session_state;
    if (!session.profiling) {
      NORMRT_RETURN_IF_ERROR(step.kernel->run(context));
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    Status status = step.kernel->run(context);
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (!status) return status;
    session.profile[index].nanoseconds +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
    session.profile[index].runs += 1;
  }

  for (const Graph::StateUpdate& update : session.compiled->graph.state_updates) {
    const TensorView& value = session.views[update.value];
    std::memcpy(session.views[update.state].data, value.data,
                value.elements() * data_type_size(value.dtype));
  }
  // The position counts tokens held in the session's state (KV cache, RNN
  // state); a stateless graph (an encoder) starts every run at position 0.
  if (session.compiled->plan.state_bytes > 0) session.position += length;
  return Status::ok();
}

}  // namespace normrt
