#include "tools/serve/tensor_request.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace normrt::serve {
namespace {

using nlohmann::json;

ApiError invalid(const std::string& message) { return {400, "invalid_input", message}; }
ApiError non_finite(const std::string& message) { return {400, "non_finite_input", message}; }

// A short rendering of a JSON value for messages (long arrays elided).
std::string describe(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_string()) return "the string " + json_quote(value.get_ref<const std::string&>());
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool spells_non_finite(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word :
       {"nan", "-nan", "+nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"}) {
    if (text == word) return true;
  }
  return false;
}

// One f32 element; `where` is "input 'x': data[3]".
ApiResult<float> f32_element(const json& value, const std::string& where) {
  double number = 0;
  if (value.is_number_float()) {
    number = value.get<double>();
  } else if (value.is_number_integer() && !value.is_number_unsigned()) {
    number = static_cast<double>(value.get<int64_t>());
  } else if (value.is_number_unsigned()) {
    number = static_cast<double>(value.get<uint64_t>());
  } else if (value.is_string() && spells_non_finite(value.get_ref<const std::string&>())) {
    return non_finite(where + " is " + describe(value) +
                      ": f32 inputs must be finite numbers (JSON has no NaN or Infinity)");
  } else if (value.is_null()) {
    return non_finite(where +
                      " is null: f32 inputs must be finite numbers (some encoders "
                      "write NaN as null)");
  } else if (value.is_array()) {
    return invalid(where +
                   " is an array: \"data\" is flat (row-major); give the dimensions "
                   "in \"shape\"");
  } else {
    return invalid(where + " is " + describe(value) + ", expected a number");
  }
  // FLT_MAX = 2^128 − 2^104; doubles from FLT_MAX + half an ulp (2^103) on
  // round to ±inf in f32, smaller ones to a finite float (3.4028235e38 to
  // FLT_MAX). nlohmann refuses 1e999 as a syntax error; inf is caught anyway.
  static const double kF32Limit = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
  if (!(std::fabs(number) < kF32Limit)) {
    const std::string shown = std::isfinite(number) ? describe(value)
                                                    : (number > 0 ? "a number beyond 1.8e308"
                                                                  : "a number beyond -1.8e308");
    return non_finite(where + " = " + shown + " is outside the f32 range (|x| ≤ 3.4028235e38)");
  }
  return static_cast<float>(number);
}

ApiResult<int32_t> i32_element(const json& value, const std::string& where) {
  if (value.is_number_unsigned()) {
    const uint64_t id = value.get<uint64_t>();
    if (id > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return invalid(where + " = " + std::to_string(id) + " is outside the i32 range");
    }
    return static_cast<int32_t>(id);
  }
  if (value.is_number_integer()) {
    const int64_t id = value.get<int64_t>();
    if (id < std::numeric_limits<int32_t>::min() || id > std::numeric_limits<int32_t>::max()) {
      return invalid(where + " = " + std::to_string(id) + " is outside the i32 range");
    }
    return static_cast<int32_t>(id);
  }
  if (value.is_array()) {
    return invalid(where +
                   " is an array: \"data\" is flat (row-major); give the dimensions "
                   "in \"shape\"");
  }
  return invalid(where + " is " + describe(value) + ", expected an integer (i32 token id)");
}

}  // namespace

// The shape of `count` values for `info`: from the request's "shape" if given
// (null: absent), else inferred from the declared shape.
ApiResult<std::vector<int64_t>> resolve_shape(const TensorInfo& info, const json* given,
                                              size_t count, size_t max_length) {
  const std::string what = "input '" + info.name + "' " + declared_shape_string(info.shape);
  size_t unit = 1;
  bool has_sequence = false;
  for (int64_t dim : info.shape) {
    if (dim < 0) {
      has_sequence = true;
    } else {
      unit *= static_cast<size_t>(dim);
    }
  }
  std::vector<int64_t> shape;
  if (given == nullptr) {
    const bool fits = has_sequence ? unit != 0 && count % unit == 0 && count / unit >= 1 &&
                                         count / unit <= max_length
                                   : count == unit;
    if (!fits) {
      const std::string expected =
          has_sequence
              ? "S × " + std::to_string(unit) + " values with 1 ≤ S ≤ " + std::to_string(max_length)
              : std::to_string(unit) + " values";
      return invalid(what + ": expected " + expected + ", got " + std::to_string(count));
    }
    for (int64_t dim : info.shape) {
      shape.push_back(dim < 0 ? static_cast<int64_t>(count / unit) : dim);
    }
    return shape;
  }
  if (!given->is_array() || given->size() != info.shape.size()) {
    return invalid(what + ": \"shape\" must be an array of " + std::to_string(info.shape.size()) +
                   " integers, got " + describe(*given) +
                   (given->is_array() ? " of " + std::to_string(given->size()) : ""));
  }
  int64_t sequence = -1;
  // The shape's element count, saturated at kCap (no overflow for any dims).
  constexpr uint64_t kCap = uint64_t{1} << 40;
  uint64_t elements = 1;
  for (size_t axis = 0; axis < given->size(); ++axis) {
    const json& dim_value = (*given)[axis];
    const std::string at = what + ": shape[" + std::to_string(axis) + "]";
    if (!dim_value.is_number_integer() || dim_value.get<int64_t>() < 0 ||
        dim_value.get<int64_t>() > (int64_t{1} << 31)) {
      return invalid(at + " is " + describe(dim_value) + ", expected an integer in [0, 2^31]");
    }
    const int64_t dim = dim_value.get<int64_t>();
    const int64_t declared = info.shape[axis];
    if (declared >= 0 && dim != declared) {
      return invalid(at + " = " + std::to_string(dim) + ", expected " + std::to_string(declared));
    }
    if (declared < 0) {
      if (sequence >= 0 && dim != sequence) {
        return invalid(at + " = " + std::to_string(dim) + " but an earlier S dimension is " +
                       std::to_string(sequence));
      }
      if (dim < 1 || static_cast<size_t>(dim) > max_length) {
        return invalid(at + " = S = " + std::to_string(dim) + ", expected 1 ≤ S ≤ " +
                       std::to_string(max_length));
      }
      sequence = dim;
    }
    const uint64_t factor = static_cast<uint64_t>(dim);
    elements = factor != 0 && elements > kCap / factor ? kCap : elements * factor;
    shape.push_back(dim);
  }
  if (elements != count) {
    return invalid(what + ": \"shape\" " + declared_shape_string(shape) + " needs " +
                   (elements >= kCap ? "more than 2^40" : std::to_string(elements)) +
                   " values, \"data\" has " + std::to_string(count));
  }
  return shape;
}

ApiResult<InputTensor> decode_input(const TensorInfo& info, const json& spec, size_t max_length) {
  const std::string what = "input '" + info.name + "'";
  const json* data = &spec;
  const json* shape = nullptr;
  if (spec.is_object()) {
    for (const auto& [key, value] : spec.items()) {
      if (key == "data") {
        data = &value;
      } else if (key == "shape") {
        shape = &value;
      } else if (key == "dtype") {
        if (!value.is_string() || value.get_ref<const std::string&>() != info.dtype) {
          return invalid(what + ": \"dtype\" is " + describe(value) + ", the model's is \"" +
                         info.dtype + "\"");
        }
      } else {
        return invalid(what + ": unknown key " + json_quote(key) +
                       " (expected \"data\" and optionally \"shape\", \"dtype\")");
      }
    }
    if (data == &spec) return invalid(what + ": missing \"data\"");
  }
  if (!data->is_array()) {
    return invalid(what +
                   " must be an array of numbers or {\"shape\": [...], \"data\": [...]}, "
                   "got " +
                   describe(*data));
  }
  ApiResult<std::vector<int64_t>> resolved = resolve_shape(info, shape, data->size(), max_length);
  if (!resolved) return resolved.error();

  InputTensor tensor;
  tensor.name = info.name;
  tensor.shape = std::move(resolved.value());
  tensor.is_i32 = info.dtype == "i32";
  if (!tensor.is_i32 && info.dtype != "f32") {
    return ApiError{400, "unsupported_input",
                    what + " has dtype " + info.dtype + ", which requests cannot carry"};
  }
  (tensor.is_i32 ? tensor.i32.reserve(data->size()) : tensor.f32.reserve(data->size()));
  for (size_t i = 0; i < data->size(); ++i) {
    const json& value = (*data)[i];
    if (tensor.is_i32) {
      ApiResult<int32_t> id = i32_element(value, what + ": data[" + std::to_string(i) + "]");
      if (!id) return id.error();
      tensor.i32.push_back(id.value());
    } else {
      ApiResult<float> number = f32_element(value, what + ": data[" + std::to_string(i) + "]");
      if (!number) return number.error();
      tensor.f32.push_back(number.value());
    }
  }
  return tensor;
}

std::string declared_shape_string(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (axis > 0) text += ", ";
    text += shape[axis] < 0 ? "S" : std::to_string(shape[axis]);
  }
  return text + "]";
}

ApiResult<std::vector<InputTensor>> decode_inputs(const json& inputs, const Model& model) {
  std::string names;
  for (const TensorInfo& info : model.inputs()) {
    names += (names.empty() ? "" : ", ") + info.name + " " + info.dtype + " " +
             declared_shape_string(info.shape);
  }
  if (!inputs.is_object()) {
    return invalid("\"inputs\" must be an object {\"name\": data, ...}, got " + describe(inputs) +
                   " (the model's inputs: " + names + ")");
  }
  for (const auto& [key, value] : inputs.items()) {
    bool known = false;
    for (const TensorInfo& info : model.inputs()) known = known || info.name == key;
    if (!known) {
      return invalid("the model has no input " + json_quote(key) + " (its inputs: " + names + ")");
    }
  }
  std::vector<InputTensor> tensors;
  for (const TensorInfo& info : model.inputs()) {
    auto found = inputs.find(info.name);
    if (found == inputs.end()) {
      return invalid("missing input '" + info.name + "' (the model's inputs: " + names + ")");
    }
    ApiResult<InputTensor> tensor = decode_input(info, *found, model.max_sequence_length());
    if (!tensor) return tensor.error();
    tensors.push_back(std::move(tensor.value()));
  }
  return tensors;
}

}  // namespace normrt::serve
