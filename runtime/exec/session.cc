// The Session API around the run loop: reading outputs, resetting state, the
// profile (binding inputs: session_inputs.cc).
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/exec/session_impl.h"

namespace normrt {

static_assert(TensorShape::kMaxRank == TensorView::kMaxRank, "an output's shape must fit");

size_t TensorRef::elements() const {
  size_t count = 1;
  for (size_t dim : shape) count *= dim;
  return count;
}

TensorRef tensor_ref(const TensorView& view) {
  TensorRef ref;
  ref.data = view.data;
  ref.dtype = data_type_name(view.dtype);
  ref.shape.rank = view.rank;
  std::copy(view.dims, view.dims + view.rank, ref.shape.dims);
  return ref;
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model,
                                                   const SessionOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<Impl> impl, make_session_impl(std::move(model), options));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Expected<TensorRef> Session::output(std::string_view name) const {
  const Graph& graph = impl_->compiled->graph;
  for (TensorId id : graph.outputs) {
    if (graph.tensors[id].name != name) continue;
    return tensor_ref(impl_->views[id]);
  }
  std::string known;
  for (TensorId id : graph.outputs) known += (known.empty() ? "" : ", ") + graph.tensors[id].name;
  return Status::error("output: the model has no output '" + std::string(name) +
                       "' (outputs: " + known + ")");
}

size_t Session::position() const { return impl_->position; }

size_t Session::threads() const { return impl_->threads; }

void Session::reset() {
  std::memset(impl_->state.get(), 0, impl_->compiled->plan.state_bytes);
  impl_->position = 0;
}

const std::vector<NodeProfile>& Session::profile() const { return impl_->profile; }

void Session::profile_reset() {
  for (NodeProfile& node : impl_->profile) node.nanoseconds = node.runs = 0;
}

const Model& Session::model() const { return *impl_->model; }

}  // namespace normrt
