// The Session API around the run loop: binding inputs, reading outputs,
// resetting state, the profile.
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

Status Session::set_input(std::string_view name, const void* data, size_t bytes) {
  const Graph& graph = impl_->compiled->graph;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    TensorId id = graph.inputs[i];
    const Tensor& tensor = graph.tensors[id];
    if (tensor.name != name) continue;
    if (data == nullptr) return Status::error("set_input: '" + tensor.name + "': data is null");
    // unit: the bytes of one step of S (of the whole input if it has no S).
    const size_t unit = shape_elements(tensor.shape, 1) * data_type_size(tensor.dtype);
    const bool has_sequence = has_sequence_dim(tensor.shape);
    const size_t max_length = has_sequence ? static_cast<size_t>(graph.max_sequence_length) : 1;
    const bool fits = unit == 0 ? bytes == 0 && !has_sequence
                                : bytes != 0 && bytes % unit == 0 && bytes / unit <= max_length;
    if (!fits) {
      std::string expected = has_sequence ? "S × " + std::to_string(unit) + " bytes with 1 ≤ S ≤ " +
                                                std::to_string(max_length)
                                          : std::to_string(unit) + " bytes";
      return Status::error("set_input: '" + tensor.name + "' " + shape_string(tensor.shape) + " " +
                           data_type_name(tensor.dtype) + ": expected " + expected + ", got " +
                           std::to_string(bytes) + " bytes");
    }
    TensorView view = impl_->views[id];
    view.data = static_cast<std::byte*>(const_cast<void*>(data));  // kernels never write inputs
    impl_->publish(id, view);
    impl_->bound_length[i] = has_sequence ? bytes / unit : 0;
    return Status::ok();
  }
  std::string known;
  for (TensorId id : graph.inputs) known += (known.empty() ? "" : ", ") + graph.tensors[id].name;
  return Status::error("set_input: the model has no input '" + std::string(name) +
                       "' (inputs: " + known + ")");
}

Expected<TensorRef> Session::output(std::string_view name) const {
  const Graph& graph = impl_->compiled->graph;
  for (TensorId id : graph.outputs) {
    if (graph.tensors[id].name != name) continue;
    return tensor_ref(impl_->views[id]);
  }
  std::string known;
  for (TensorId id : graph.outputs) known += (known.empty() ? "" : ", ") + graph.tensors[id].name;
  return Status::error("output: the model has no output '" + std::string(name) + "' (outputs: " +
                       known + ")");
}

size_t Session::position() const { return impl_->position; }

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
