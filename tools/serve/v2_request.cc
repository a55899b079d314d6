#include "tools/serve/v2_request.h"

#include <algorithm>
#include <cctype>

namespace normrt::serve {
namespace {

using nlohmann::json;

ApiError bad(const std::string& message) { return {400, "invalid_request", message}; }

std::string shown(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 80);
}

// Appends the scalars of `data` (nested arrays allowed) in row-major order.
void flatten(json& data, json& flat) {
  for (json& item : data) {
    if (item.is_array()) {
      flatten(item, flat);
    } else {
      flat.push_back(std::move(item));
    }
  }
}

// A boolean parameter `key` of `parameters` (absent: `fallback`).
ApiResult<bool> bool_parameter(const json* parameters, const char* key, bool fallback,
                               const std::string& where) {
  if (parameters == nullptr) return fallback;
  auto found = parameters->find(key);
  if (found == parameters->end()) return fallback;
  if (!found->is_boolean()) {
    return bad(where + ": parameter \"" + key + "\" must be true or false, got " + shown(*found));
  }
  return found->get<bool>();
}

ApiResult<const json*> parameters_of(const json& object, const std::string& where) {
  auto found = object.find("parameters");
  if (found == object.end() || found->is_null()) return static_cast<const json*>(nullptr);
  if (!found->is_object()) return bad(where + ": \"parameters\" must be an object");
  for (const char* unsupported : {"shared_memory_region", "shared_memory_byte_size"}) {
    if (found->contains(unsupported)) {
      return bad(where + ": shared memory (\"" + std::string(unsupported) +
                 "\") is not supported by this server; send the data in the request");
    }
  }
  return &*found;
}

ApiResult<V2Input> parse_input(json& spec, size_t index, std::string_view binary,
                               size_t* binary_used) {
  std::string where = "inputs[" + std::to_string(index) + "]";
  if (!spec.is_object()) return bad(where + " must be an object, got " + spec.type_name());
  V2Input input;
  auto name = spec.find("name");
  if (name == spec.end() || !name->is_string()) return bad(where + ": missing \"name\" (a string)");
  input.name = name->get<std::string>();
  where += " '" + input.name + "'";
  auto datatype = spec.find("datatype");
  if (datatype == spec.end() || !datatype->is_string()) {
    return bad(where + ": missing \"datatype\" (a string: FP32, INT32, INT64, BYTES)");
  }
  input.datatype = datatype->get<std::string>();
  auto shape = spec.find("shape");
  if (shape == spec.end() || !shape->is_array() || shape->size() > 8) {
    return bad(where + ": \"shape\" must be an array of at most 8 dimensions");
  }
  input.elements = 1;
  for (const json& dim : *shape) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0 ||
        dim.get<int64_t>() > (int64_t{1} << 31)) {
      return bad(where + ": \"shape\" has " + shown(dim) + ", expected integers in [0, 2^31]");
    }
    input.shape.push_back(dim.get<int64_t>());
    // Saturated at 2^40 (more than any body holds) before it could overflow.
    constexpr size_t kCap = size_t{1} << 40;
    const auto factor = static_cast<size_t>(dim.get<int64_t>());
    input.elements = factor != 0 && input.elements > kCap / factor ? kCap : input.elements * factor;
  }
  ApiResult<const json*> parameters = parameters_of(spec, where);
  if (!parameters) return parameters.error();
  auto data = spec.find("data");
  const json* size =
      parameters.value() != nullptr && parameters.value()->contains("binary_data_size")
          ? &parameters.value()->at("binary_data_size")
          : nullptr;
  if (size != nullptr) {
    if (data != spec.end()) return bad(where + ": both \"data\" and \"binary_data_size\"");
    if (!size->is_number_integer() || size->get<int64_t>() < 0) {
      return bad(where + ": \"binary_data_size\" must be a byte count, got " + shown(*size));
    }
    const auto bytes = static_cast<uint64_t>(size->get<int64_t>());
    if (bytes > binary.size() - *binary_used) {
      return bad(where + ": \"binary_data_size\" " + std::to_string(bytes) + " runs past the " +
                 std::to_string(binary.size()) +
                 " bytes of binary data after the JSON header (Inference-Header-Content-Length)");
    }
    input.binary = true;
    input.bytes = binary.substr(*binary_used, bytes);
    *binary_used += bytes;
    return input;
  }
  if (data == spec.end()) return bad(where + ": missing \"data\" (or \"binary_data_size\")");
  if (!data->is_array()) return bad(where + ": \"data\" must be an array");
  input.data = json::array();
  flatten(*data, input.data);
  return input;
}

}  // namespace

std::string v2_datatype(std::string_view dtype) {
  if (dtype == "f32") return "FP32";
  if (dtype == "i32") return "INT32";
  std::string upper(dtype);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

ApiResult<V2Request> parse_v2_request(json& header, std::string_view binary) {
  V2Request request;
  auto id = header.find("id");
  if (id != header.end() && !id->is_null()) {
    if (!id->is_string()) return bad("\"id\" must be a string, got " + shown(*id));
    request.id = id->get<std::string>();
  }
  ApiResult<const json*> parameters = parameters_of(header, "the request");
  if (!parameters) return parameters.error();
  ApiResult<bool> binary_outputs =
      bool_parameter(parameters.value(), "binary_data_output", false, "the request");
  if (!binary_outputs) return binary_outputs.error();
  request.binary_outputs = binary_outputs.value();

  auto inputs = header.find("inputs");
  if (inputs == header.end() || !inputs->is_array() || inputs->empty()) {
    return bad("\"inputs\" must be a non-empty array of input tensors");
  }
  size_t binary_used = 0;
  for (size_t i = 0; i < inputs->size(); ++i) {
    ApiResult<V2Input> input = parse_input((*inputs)[i], i, binary, &binary_used);
    if (!input) return input.error();
    for (const V2Input& earlier : request.inputs) {
      if (earlier.name == input->name) return bad("input '" + earlier.name + "' is given twice");
    }
    request.inputs.push_back(std::move(input.value()));
  }
  if (binary_used != binary.size()) {
    return bad("the request has " + std::to_string(binary.size() - binary_used) +
               " bytes of binary data after the JSON header that no input claims "
               "(binary_data_size)");
  }

  auto outputs = header.find("outputs");
  if (outputs != header.end() && !outputs->is_null()) {
    if (!outputs->is_array()) return bad("\"outputs\" must be an array");
    for (size_t i = 0; i < outputs->size(); ++i) {
      const json& spec = (*outputs)[i];
      const std::string where = "outputs[" + std::to_string(i) + "]";
      if (!spec.is_object() || !spec.contains("name") || !spec["name"].is_string()) {
        return bad(where + " must be an object with a \"name\"");
      }
      V2Output output;
      output.name = spec["name"].get<std::string>();
      ApiResult<const json*> output_parameters = parameters_of(spec, where);
      if (!output_parameters) return output_parameters.error();
      if (output_parameters.value() != nullptr) {
        auto classes = output_parameters.value()->find("class_count");
        if (classes != output_parameters.value()->end() &&
            !(classes->is_number_integer() && classes->get<int64_t>() == 0)) {
          return bad(where + ": the classification extension (\"class_count\") is not supported");
        }
      }
      ApiResult<bool> binary_output =
          bool_parameter(output_parameters.value(), "binary_data", request.binary_outputs, where);
      if (!binary_output) return binary_output.error();
      output.binary = binary_output.value();
      for (const V2Output& earlier : request.outputs) {
        if (earlier.name == output.name) return bad("output '" + output.name + "' is asked twice");
      }
      request.outputs.push_back(std::move(output));
    }
  }
  return request;
}

ApiResult<std::vector<std::string>> v2_bytes_elements(V2Input& input) {
  const std::string where = "input '" + input.name + "'";
  std::vector<std::string> elements;
  if (!input.binary) {
    for (size_t i = 0; i < input.data.size(); ++i) {
      json& item = input.data[i];
      if (!item.is_string()) {
        return bad(where + ": data[" + std::to_string(i) + "] is " + item.type_name() +
                   ", expected a string (BYTES)");
      }
      elements.push_back(std::move(item.get_ref<std::string&>()));
    }
    return elements;
  }
  std::string_view rest = input.bytes;
  while (!rest.empty()) {
    if (rest.size() < 4) {
      return bad(where + ": the binary BYTES data ends inside an element's 4-byte length");
    }
    uint32_t length = 0;
    for (int b = 0; b < 4; ++b) length |= uint32_t{static_cast<unsigned char>(rest[b])} << (8 * b);
    rest.remove_prefix(4);
    if (length > rest.size()) {
      return bad(where + ": binary BYTES element " + std::to_string(elements.size()) + " claims " +
                 std::to_string(length) + " bytes, only " + std::to_string(rest.size()) +
                 " follow");
    }
    elements.emplace_back(rest.substr(0, length));
    rest.remove_prefix(length);
  }
  return elements;
}

}  // namespace normrt::serve
