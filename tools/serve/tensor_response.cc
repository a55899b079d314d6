#include "tools/serve/tensor_response.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace normrt::serve {

void append_f32_array(std::string& out, const float* values, size_t count) {
  out += '[';
  char buffer[32];
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += ',';
    // 9 significant digits: exact for any float (see the header).
    std::to_chars_result end =
        std::to_chars(buffer, buffer + sizeof buffer, values[i], std::chars_format::general, 9);
    out.append(buffer, end.ptr);
  }
  out += ']';
}

std::optional<size_t> first_non_finite(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i])) return i;
  }
  return std::nullopt;
}

std::optional<ApiError> append_tensor_json(std::string& out, const std::string& name,
                                           const TensorRef& tensor) {
  out += "{\"dtype\": " + json_quote(std::string(tensor.dtype)) + ", \"shape\": [";
  for (size_t axis = 0; axis < tensor.shape.size(); ++axis) {
    out += (axis > 0 ? "," : "") + std::to_string(tensor.shape[axis]);
  }
  out += "], \"data\": ";
  const size_t count = tensor.elements();
  if (tensor.dtype == "i32") {
    const auto* ids = static_cast<const int32_t*>(tensor.data);
    out += '[';
    for (size_t i = 0; i < count; ++i) out += (i > 0 ? "," : "") + std::to_string(ids[i]);
    out += ']';
  } else {
    if (std::optional<size_t> bad = first_non_finite(tensor.f32(), count)) {
      const float value = tensor.f32()[*bad];
      return ApiError{422, "non_finite_output",
                      "output '" + name + "' has " + (std::isnan(value) ? "NaN" : "an infinity") +
                          " at index " + std::to_string(*bad) +
                          " (JSON cannot carry it; the input drove the model out of f32 range)"};
    }
    append_f32_array(out, tensor.f32(), count);
  }
  out += '}';
  return std::nullopt;
}

}  // namespace normrt::serve
