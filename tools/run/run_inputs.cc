#include "tools/run/run_inputs.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "tools/convert/readers/npy_array.h"

namespace normrt::run {
namespace {

Expected<std::vector<unsigned char>> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return Status::error(path + ": cannot open");
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(file)),
                                    std::istreambuf_iterator<char>());
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + (shape[i] < 0 ? std::string("S") : std::to_string(shape[i]));
  }
  return text + "]";
}

bool is_npy(const std::string& path, const std::vector<unsigned char>& bytes) {
  const bool by_name = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  return by_name || (bytes.size() >= 6 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0);
}

// The array's shape against the input's: same rank, fixed dims equal, S in range.
Status check_shape(const TensorInfo& input, size_t max_length, const SourceTensor& array,
                   const std::string& what) {
  bool fits = array.shape.size() == input.shape.size();
  for (size_t i = 0; fits && i < input.shape.size(); ++i) {
    fits = input.shape[i] < 0 ? array.shape[i] >= 1 && size_t(array.shape[i]) <= max_length
                              : array.shape[i] == input.shape[i];
  }
  if (fits) return Status::ok();
  bool has_sequence = false;
  for (int64_t dim : input.shape) has_sequence = has_sequence || dim < 0;
  return Status::error(what + ": shape " + shape_text(array.shape) + " does not fit input '" +
                       input.name + "' " + shape_text(input.shape) + " " + input.dtype +
                       (has_sequence ? " (1 ≤ S ≤ " + std::to_string(max_length) + ")" : ""));
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}
std::string number_text(int64_t value) { return std::to_string(value); }

// Element i of the array as T (the data may be unaligned).
template <typename T>
T element(const SourceTensor& array, size_t i) {
  T value;
  std::memcpy(&value, array.data + i * sizeof(T), sizeof(T));
  return value;
}

// The array's values as `Dst`, each checked by `convert` (false: out of range).
template <typename Src, typename Dst, typename Convert>
Status convert_values(const SourceTensor& array, size_t data_offset, const std::string& what,
                      const char* range, std::vector<unsigned char>* out, Convert convert) {
  const size_t count = array.size / sizeof(Src);
  out->resize(count * sizeof(Dst));
  for (size_t i = 0; i < count; ++i) {
    const Src value = element<Src>(array, i);
    Dst converted;
    if (!convert(value, &converted)) {
      return Status::error(what + ": value " + number_text(value) + " at index " +
                           std::to_string(i) + " (byte offset " +
                           std::to_string(data_offset + i * sizeof(Src)) + ") is outside " + range);
    }
    std::memcpy(out->data() + i * sizeof(Dst), &converted, sizeof(Dst));
  }
  return Status::ok();
}

Status convert_npy(const TensorInfo& input, const SourceTensor& array, size_t data_offset,
                   const std::string& what, std::vector<unsigned char>* out) {
  const std::string& dtype = array.dtype;
  if (input.dtype == "f32" && (dtype == "F32" || dtype == "F64")) {
    if (dtype == "F32") {
      const auto* raw = reinterpret_cast<const unsigned char*>(array.data);
      out->assign(raw, raw + array.size);
      return Status::ok();
    }
    return convert_values<double, float>(array, data_offset, what, "the f32 range", out,
                                         [](double v, float* f) {
                                           *f = static_cast<float>(v);
                                           return !std::isfinite(v) || std::fabs(v) <= FLT_MAX;
                                         });
  }
  if (input.dtype == "i32" && (dtype == "I32" || dtype == "I64")) {
    if (dtype == "I32") {
      const auto* raw = reinterpret_cast<const unsigned char*>(array.data);
      out->assign(raw, raw + array.size);
      return Status::ok();
    }
    return convert_values<int64_t, int32_t>(array, data_offset, what, "the i32 range", out,
                                            [](int64_t v, int32_t* i) {
                                              *i = static_cast<int32_t>(v);
                                              return v >= INT32_MIN && v <= INT32_MAX;
                                            });
  }
  return Status::error(what + ": dtype " + dtype + " cannot feed input '" + input.name + "' " +
                       input.dtype + " (expected " +
                       (input.dtype == "f32" ? "F32 or F64" : "I32 or I64") + ")");
}

Status check_finite_values(const std::vector<unsigned char>& bytes, const std::string& what) {
  for (size_t i = 0; i < bytes.size() / 4; ++i) {
    float v;
    std::memcpy(&v, bytes.data() + i * 4, 4);
    if (!std::isfinite(v)) {
      return Status::error(what + ": value " + number_text(double(v)) + " at element " +
                           std::to_string(i) + " is not finite (--check-finite)");
    }
  }
  return Status::ok();
}

}  // namespace

Expected<InputData> load_input_file(const Model& model, const std::string& name,
                                    const std::string& path, bool check_finite) {
  const TensorInfo* input = nullptr;
  std::string known;
  for (const TensorInfo& info : model.inputs()) {
    if (info.name == name) input = &info;
    known += (known.empty() ? "" : ", ") + info.name;
  }
  if (input == nullptr) {
    return Status::error("--input " + name + "=" + path + ": the model has no input '" + name +
                         "' (inputs: " + known + ")");
  }
  Expected<std::vector<unsigned char>> bytes = read_file(path);
  if (!bytes) return bytes.status();
  InputData data;
  data.name = name;
  if (!is_npy(path, *bytes)) {
    data.bytes = std::move(bytes).value();
  } else {
    const auto* start = reinterpret_cast<const std::byte*>(bytes->data());
    NORMRT_ASSIGN_OR_RETURN(SourceTensor array, parse_npy(start, bytes->size(), name, path));
    const size_t data_offset = static_cast<size_t>(array.data - start);
    NORMRT_RETURN_IF_ERROR(check_shape(*input, model.max_sequence_length(), array, path));
    NORMRT_RETURN_IF_ERROR(convert_npy(*input, array, data_offset, path, &data.bytes));
  }
  if (check_finite && input->dtype == "f32") {
    NORMRT_RETURN_IF_ERROR(check_finite_values(data.bytes, path));
  }
  return data;
}

}  // namespace normrt::run
