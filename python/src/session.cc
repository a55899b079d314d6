#include "session.h"

#include <nanobind/stl/string.h>

#include <cstring>
#include <utility>

#include "errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace normrt::python {

PySession::PySession(const PyModel& model, size_t threads, bool profile, size_t max_batch)
    : model_(model) {
  SessionOptions options;
  options.threads = threads;
  options.profile = profile;
  options.max_batch = max_batch;
  session_ = value_or_throw(Session::create(model_.model, options), ErrorKind::kInvalidArgument);
}

void PySession::bind_locked(const std::string& name, InputArray& input) {
  Status status = session_->set_input(name, input.type, input.data, input.shape);
  check(status, ErrorKind::kInvalidArgument);
  nb::gil_scoped_acquire acquire;
  // i64 ids were converted into the session's own buffer: nothing to keep.
  nb::object keep = input.type == ElementType::kI64 ? nb::none() : std::move(input.keep);
  std::swap(bound_[name], keep);  // the previous array dies with `keep`, before the GIL goes
}

void PySession::set_input(const std::string& name, nb::handle value) {
  InputArray input = input_array(value, name);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  bind_locked(name, input);
}

namespace {

// The mask as an InputArray (data null: None, clear it).
InputArray mask_array(nb::handle mask) {
  if (mask.is_none()) return InputArray{};
  InputArray array = input_array(mask, "attention_mask");
  if (array.type == ElementType::kF32)
    throw_error(ErrorKind::kInvalidArgument,
                "attention_mask: give int32 or int64 values (0 or 1), got floats");
  return array;
}

}  // namespace

void PySession::mask_locked(const InputArray& mask) {
  check(session_->set_attention_mask(mask.type, mask.data, mask.shape),
        ErrorKind::kInvalidArgument);
}

void PySession::set_attention_mask(nb::handle mask) {
  InputArray array = mask_array(mask);
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  mask_locked(array);  // copied by the session: nothing to keep
}

nb::dict PySession::run(nb::handle inputs, nb::handle attention_mask) {
  const bool masked = !attention_mask.is_none();
  InputArray mask = mask_array(attention_mask);
  std::vector<std::pair<std::string, InputArray>> arrays;
  if (!inputs.is_none()) {
    for (auto [name, value] :
         nb::cast<nb::dict>(nb::module_::import_("builtins").attr("dict")(inputs)))
      arrays.emplace_back(nb::cast<std::string>(name),
                          input_array(value, nb::cast<std::string>(name)));
  }
  std::vector<std::pair<std::string, OwnedTensor>> outputs;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [name, input] : arrays) bind_locked(name, input);
    if (masked) mask_locked(mask);
    check(session_->run(), ErrorKind::kRunFailed);
    for (const TensorInfo& info : model_.model->outputs()) {
      TensorRef ref = value_or_throw(session_->output(info.name), ErrorKind::kInternal);
      outputs.emplace_back(info.name, copy_tensor(ref));
    }
  }
  nb::dict result;
  for (auto& [name, tensor] : outputs) result[name.c_str()] = to_numpy(std::move(tensor));
  return result;
}

nb::object PySession::output(const std::string& name, bool copy, nb::handle self) {
  if (!copy) {
    // A view: valid memory for as long as the session lives (the view keeps
    // it alive), overwritten by the next run().
    TensorRef ref;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      ref = value_or_throw(session_->output(name), ErrorKind::kInvalidArgument);
    }
    return view_numpy(ref, self);
  }
  OwnedTensor tensor;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    tensor = copy_tensor(value_or_throw(session_->output(name), ErrorKind::kInvalidArgument));
  }
  return to_numpy(std::move(tensor));
}

void PySession::reset() {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  session_->reset();
}

size_t PySession::position() {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  return session_->position();
}

nb::object PySession::state(const std::string& name) {
  OwnedTensor tensor;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    tensor = copy_tensor(value_or_throw(session_->state(name), ErrorKind::kInvalidArgument));
  }
  return to_numpy(std::move(tensor));
}

void PySession::set_state(const std::string& name, nb::handle value) {
  InputArray input = input_array(value, name);
  if (input.type != ElementType::kF32)
    throw_error(ErrorKind::kInvalidArgument,
                "set_state: '" + name + "': states are float32, got an integer array");
  size_t elements = 1;
  for (size_t dim : input.shape) elements *= dim;
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  check(session_->set_state(name, input.data, elements * sizeof(float)),
        ErrorKind::kInvalidArgument);
}

void PySession::copy_state_from(PySession& other) {
  if (&other == this) return;
  nb::gil_scoped_release release;
  // Both locks at once, without lock-order deadlocks.
  std::scoped_lock lock(mutex_, other.mutex_);
  check(session_->copy_state_from(*other.session_), ErrorKind::kInvalidArgument);
}

nb::list PySession::profile() {
  std::vector<NodeProfile> nodes;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    nodes = session_->profile();
  }
  nb::list result;
  for (const NodeProfile& node : nodes) {
    nb::dict d;
    d["name"] = node.name;
    d["op"] = node.op;
    d["norm"] = node.norm;
    d["nanoseconds"] = node.nanoseconds;
    d["runs"] = node.runs;
    result.append(d);
  }
  return result;
}

void PySession::profile_reset() {
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(mutex_);
  session_->profile_reset();
}

void bind_session(nb::module_& m) {
  nb::class_<PySession>(
      m, "Session",
      "One request stream over a Model: its activation memory, RNN state, KV cache and "
      "position. Calls release the GIL; calls on one Session from several threads run one "
      "at a time (use one Session per thread to run in parallel).")
      .def(nb::init<const PyModel&, size_t, bool, size_t>(), "model"_a, nb::kw_only(),
           "threads"_a = 1, "profile"_a = false, "max_batch"_a = 1,
           "threads: intra-op threads (1: the calling thread only; 0: as many as the process may "
           "use, its affinity mask). profile: time every "
           "node (Session.profile()). max_batch: the most sequences one run takes, for a "
           "model whose batch_refusal is '' (inputs [S] then take [B, S]).")
      .def("set_attention_mask", &PySession::set_attention_mask, "mask"_a.none(),
           nb::sig("def set_attention_mask(self, mask: numpy.typing.ArrayLike | None) -> None"),
           "Which tokens of a [B, S] batch are real: int32/int64 0/1, each row ones then "
           "zeros (right padding); copied now, kept for the runs of the same [B, S] until set "
           "again; None clears it. Padded tokens are dropped before any work: token outputs "
           "hold the real rows only, sequence after sequence.")
      .def("set_input", &PySession::set_input, "name"_a, "array"_a,
           nb::sig("def set_input(self, name: str, array: numpy.typing.ArrayLike) -> None"),
           "Binds an input. C-contiguous int32 / float32 arrays are read in place by every "
           "later run (no copy) until the input is bound again; int64 ids are checked to fit "
           "int32 and converted now; other layouts are copied, float64 is converted to "
           "float32, other dtypes are refused (InvalidArgumentError).")
      .def("run", &PySession::run, "inputs"_a = nb::none(), "attention_mask"_a = nb::none(),
           nb::sig("def run(self, inputs: collections.abc.Mapping[str, numpy.typing.ArrayLike] "
                   "| None = None, attention_mask: numpy.typing.ArrayLike | None = None) -> "
                   "dict[str, numpy.typing.NDArray[typing.Any]]"),
           "Binds `inputs` (name → array, optional) and, if given, the attention mask "
           "(set_attention_mask), runs with the GIL released, and returns every output as a "
           "new numpy array (a copy the array owns). Raises RunError with normrt's message.")
      .def(
          "output",
          [](nb::handle self, const std::string& name, bool copy) {
            return nb::cast<PySession&>(self).output(name, copy, self);
          },
          "name"_a, "copy"_a = true,
          nb::sig("def output(self, name: str, copy: bool = True) -> "
                  "numpy.typing.NDArray[typing.Any]"),
          "An output of the last run: a copy (default), or with copy=False a read-only view "
          "of the session's memory that keeps the session alive and is overwritten by its "
          "next run.")
      .def("reset", &PySession::reset, "Zeroes the state (RNN state, KV cache) and the position.")
      .def_prop_ro("position", &PySession::position,
                   "Tokens fed since creation or reset() (the KV cache fill).")
      .def("state", &PySession::state, "name"_a,
           nb::sig("def state(self, name: str) -> numpy.typing.NDArray[numpy.float32]"),
           "A state tensor as the last run left it (a copy).")
      .def("set_state", &PySession::set_state, "name"_a, "array"_a,
           nb::sig("def set_state(self, name: str, array: numpy.typing.ArrayLike) -> None"),
           "Overwrites a state tensor with float32 data of exactly its size.")
      .def("copy_state_from", &PySession::copy_state_from, "other"_a,
           "Makes this session's state and position a copy of another's (same Model).")
      .def("profile", &PySession::profile,
           nb::sig("def profile(self) -> list[dict[str, typing.Any]]"),
           "Time per node since creation or profile_reset() (with profile=True): a list of "
           "dicts name, op, norm, nanoseconds, runs.")
      .def("profile_reset", &PySession::profile_reset)
      .def_prop_ro("model", [](const PySession& s) { return s.model(); });
}

}  // namespace normrt::python
