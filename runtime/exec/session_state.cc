// Reading, writing and copying a session's state (RNN states, KV caches):
// what decoding loops need to seed a decoder and to fork beam hypotheses.
#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

// The kState tensor called `name`, or an error listing the model's states.
Expected<TensorId> find_state(const Model::Impl& compiled, std::string_view name,
                              const char* caller) {
  for (TensorId id : compiled.state_tensors) {
    if (compiled.graph.tensors[id].name == name) return id;
  }
  std::string known;
  for (const TensorInfo& info : compiled.states) known += (known.empty() ? "" : ", ") + info.name;
  return Status::error(std::string(caller) + ": the model has no state '" + std::string(name) +
                       "' (states: " + (known.empty() ? "none" : known) + ")");
}

}  // namespace

Expected<TensorRef> Session::state(std::string_view name) const {
  NORMRT_ASSIGN_OR_RETURN(TensorId id, find_state(*impl_->compiled, name, "state"));
  return tensor_ref(impl_->views[id]);
}

Status Session::set_state(std::string_view name, const void* data, size_t bytes) {
  NORMRT_ASSIGN_OR_RETURN(TensorId id, find_state(*impl_->compiled, name, "set_state"));
  const Tensor& tensor = impl_->compiled->graph.tensors[id];
  const size_t size = shape_elements(tensor.shape, 1) * data_type_size(tensor.dtype);
  if (data == nullptr) return Status::error("set_state: '" + tensor.name + "': data is null");
  if (bytes != size) {
    return Status::error("set_state: '" + tensor.name + "' " + shape_string(tensor.shape) + " " +
                         data_type_name(tensor.dtype) + ": expected " + std::to_string(size) +
                         " bytes, got " + std::to_string(bytes));
  }
  std::memcpy(impl_->views[id].data, data, bytes);
  return Status::ok();
}

Status Session::copy_state_from(const Session& other) {
  if (other.impl_->compiled != impl_->compiled) {
    return Status::error("copy_state_from: the other session runs a different Model");
  }
  if (&other != this) {
    std::memcpy(impl_->state.get(), other.impl_->state.get(), impl_->compiled->plan.state_bytes);
    impl_->position = other.impl_->position;
  }
  return Status::ok();
}

}  // namespace normrt
