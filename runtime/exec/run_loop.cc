// Session::run(): the whole inference loop. Everything it needs was prepared
// at load (kernels, memory plan) and at session creation (views, steps), so
// a run is: settle S, walk the steps, carry the state over.
#include <chrono>
#include <cstring>
#include <string>

#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

// S of this run, from the bound inputs whose shapes have it (1 if none do).
Expected<size_t> run_sequence_length(const Session::Impl& session) {
  const Graph& graph = session.compiled->graph;
  size_t length = 0;
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
    length = this_length;
    first = id;
  }
  return length == 0 ? size_t{1} : length;
}

}  // namespace

Status Session::run() {
  Impl& session = *impl_;
  NORMRT_ASSIGN_OR_RETURN(size_t length, run_sequence_length(session));
  session.set_sequence_length(length);

  OpRunContext context;
  context.sequence_length = length;
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
