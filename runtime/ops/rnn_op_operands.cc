#include "runtime/ops/rnn_op_operands.h"

#include <cmath>
#include <string>

namespace normrt::seq_op {

std::string NodeChecker::prefix() const {
  return "node '" + node_.name + "' (" + op_type_name(node_.op) + "): ";
}

Expected<const Tensor*> NodeChecker::optional_input(size_t index, const char* what) const {
  if (index >= node_.inputs.size() || node_.inputs[index] == kNoTensor) {
    return static_cast<const Tensor*>(nullptr);
  }
  const TensorId id = node_.inputs[index];
  if (id >= graph_.tensors.size()) {
    return error(std::string("input ") + std::to_string(index) + " (" + what +
                 ") refers to tensor " + std::to_string(id) + ", but the graph has " +
                 std::to_string(graph_.tensors.size()) + " tensors");
  }
  return &graph_.tensors[id];
}

Expected<const Tensor*> NodeChecker::input(size_t index, const char* what) const {
  Expected<const Tensor*> tensor = optional_input(index, what);
  if (tensor && *tensor == nullptr) {
    return error(std::string("input ") + std::to_string(index) + " (" + what +
                 ") is required but absent");
  }
  return tensor;
}

bool NodeChecker::has_output(size_t index) const {
  return index < node_.outputs.size() && node_.outputs[index] != kNoTensor;
}

std::string NodeChecker::describe(const Tensor& tensor, const char* what) {
  return std::string(what) + " '" + tensor.name + "'";
}

Status NodeChecker::check_type(const Tensor& tensor, const char* what,
                               std::initializer_list<DataType> allowed, size_t rank) const {
  bool dtype_ok = false;
  std::string names;
  for (DataType type : allowed) {
    dtype_ok = dtype_ok || tensor.dtype == type;
    names += (names.empty() ? "" : " or ") + std::string(data_type_name(type));
  }
  if (!dtype_ok) {
    return error(describe(tensor, what) + " must be " + names + ", found " +
                 data_type_name(tensor.dtype));
  }
  if (tensor.shape.size() != rank) {
    return error(describe(tensor, what) + " must have rank " + std::to_string(rank) + ", found " +
                 shape_string(tensor.shape));
  }
  return Status::ok();
}

Status NodeChecker::check_shape(const Tensor& tensor, const char* what,
                                const Shape& expected) const {
  if (tensor.shape != expected) {
    return error(describe(tensor, what) + " must have shape " + shape_string(expected) +
                 ", found " + shape_string(tensor.shape));
  }
  return Status::ok();
}

Status NodeChecker::check_kind(const Tensor& tensor, const char* what, TensorKind kind) const {
  if (tensor.kind != kind) {
    return error(describe(tensor, what) + " must be a " + tensor_kind_name(kind) +
                 " tensor, found " + tensor_kind_name(tensor.kind));
  }
  return Status::ok();
}

Status NodeChecker::check_attribute_names(std::initializer_list<const char*> allowed) const {
  for (const Attribute& attribute : node_.attributes) {
    bool known = false;
    std::string names;
    for (const char* name : allowed) {
      known = known || attribute.name == name;
      names += (names.empty() ? "" : ", ") + std::string(name);
    }
    if (!known) {
      return error("unknown attribute '" + attribute.name + "' (" + op_type_name(node_.op) +
                   " takes " + names + ")");
    }
  }
  return Status::ok();
}

Expected<int64_t> NodeChecker::int_in_range(const char* name, int64_t fallback, int64_t lo,
                                            int64_t hi) const {
  Expected<int64_t> value = node_.int_attribute(name, fallback);
  if (!value) return value;
  if (*value < lo || *value > hi) {
    return error(std::string("attribute '") + name + "' must be in [" + std::to_string(lo) + ", " +
                 std::to_string(hi) + "], found " + std::to_string(*value));
  }
  return value;
}

Expected<int64_t> NodeChecker::required_int(const char* name, int64_t lo, int64_t hi) const {
  if (node_.find_attribute(name) == nullptr) {
    return error(std::string("attribute '") + name + "' is required");
  }
  return int_in_range(name, lo, lo, hi);
}

Expected<bool> NodeChecker::flag(const char* name, bool fallback) const {
  NORMRT_ASSIGN_OR_RETURN(int64_t value, int_in_range(name, fallback ? 1 : 0, 0, 1));
  return value == 1;
}

Expected<double> NodeChecker::finite_float(const char* name, double fallback) const {
  Expected<double> value = node_.float_attribute(name, fallback);
  if (!value) return value;
  if (!std::isfinite(*value)) {
    return error(std::string("attribute '") + name + "' must be finite, found " +
                 std::to_string(*value));
  }
  return value;
}

Expected<size_t> NodeChecker::choice(const char* name, size_t fallback,
                                     std::initializer_list<const char*> choices) const {
  if (node_.find_attribute(name) == nullptr) return fallback;
  NORMRT_ASSIGN_OR_RETURN(std::string value, node_.string_attribute(name, ""));
  std::string valid;
  size_t index = 0;
  for (const char* option : choices) {
    if (value == option) return index;
    valid += (index++ == 0 ? "'" : ", '") + std::string(option) + "'";
  }
  return error(std::string("attribute '") + name + "' must be one of " + valid + ", found '" +
               value + "'");
}

}  // namespace normrt::seq_op
