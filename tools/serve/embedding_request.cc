#include "tools/serve/embedding_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace normrt::serve {
namespace {

using nlohmann::json;

ApiError bad(const std::string& message, const std::string& param) {
  return {400, "invalid_request", message, param};
}

const char* kInputForms =
    "a string, an array of strings, an array of token ids, or an array of token-id arrays";

// One token-id input (`where` names it: "input" or "input[3]").
ApiResult<std::vector<int32_t>> token_ids(const json& list, const std::string& where,
                                          const EmbeddingRequestLimits& limits) {
  if (list.empty()) return bad(where + " is an empty token-id array", "input");
  if (list.size() > limits.max_ids) {
    return bad(where + " has " + std::to_string(list.size()) + " token ids, more than the " +
                   std::to_string(limits.max_ids) + " this model takes (max_sequence_length)",
               "input");
  }
  std::vector<int32_t> ids;
  ids.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const json& id = list[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (!id.is_number_integer()) {
      return bad(at + " is " + std::string(id.type_name()) + ", expected a token id (an integer)",
                 "input");
    }
    const bool negative = !id.is_number_unsigned() && id.get<int64_t>() < 0;
    if (negative || id.get<uint64_t>() >= static_cast<uint64_t>(limits.vocabulary_size)) {
      return bad(at + " = " + id.dump() +
                     " is not a token id of this model's vocabulary (0 ≤ id < " +
                     std::to_string(limits.vocabulary_size) + ")",
                 "input");
    }
    ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  return ids;
}

ApiResult<std::vector<EmbeddingInput>> inputs_of(json& input,
                                                 const EmbeddingRequestLimits& limits) {
  std::vector<EmbeddingInput> inputs;
  if (input.is_string()) {
    inputs.push_back({false, std::move(input.get_ref<std::string&>()), {}});
    return inputs;
  }
  if (!input.is_array() || input.empty()) {
    return bad("\"input\" must be " + std::string(kInputForms) + "; got " + input.type_name() +
                   (input.is_array() ? " (empty)" : ""),
               "input");
  }
  // One array of integers is one input of token ids.
  if (input[0].is_number()) {
    ApiResult<std::vector<int32_t>> ids = token_ids(input, "input", limits);
    if (!ids) return ids.error();
    inputs.push_back({true, {}, std::move(ids.value())});
    return inputs;
  }
  if (input.size() > limits.max_inputs) {
    return bad("\"input\" has " + std::to_string(input.size()) + " items, at most " +
                   std::to_string(limits.max_inputs) + " per request (--max-batch)",
               "input");
  }
  // Every item of one kind: all strings, or all token-id arrays.
  const bool texts = input[0].is_string();
  inputs.reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    json& item = input[i];
    const std::string at = "input[" + std::to_string(i) + "]";
    if (texts && item.is_string()) {
      // The DOM's copy is not needed again: move it.
      inputs.push_back({false, std::move(item.get_ref<std::string&>()), {}});
    } else if (!texts && item.is_array()) {
      ApiResult<std::vector<int32_t>> ids = token_ids(item, at, limits);
      if (!ids) return ids.error();
      inputs.push_back({true, {}, std::move(ids.value())});
    } else {
      return bad(at + " is " + std::string(item.type_name()) + " but input[0] is " +
                     input[0].type_name() + ": \"input\" must be " + kInputForms,
                 "input");
    }
  }
  return inputs;
}

}  // namespace

ApiResult<EmbeddingRequest> parse_embedding_request(json& request,
                                                    const EmbeddingRequestLimits& limits) {
  EmbeddingRequest parsed;
  auto model = request.find("model");
  if (model != request.end() && !model->is_null()) {
    if (!model->is_string()) {
      return bad("\"model\" must be a string, got " + std::string(model->type_name()), "model");
    }
    parsed.model = model->get<std::string>();
  }
  auto format = request.find("encoding_format");
  if (format != request.end() && !format->is_null()) {
    const bool is_float = format->is_string() && format->get_ref<const std::string&>() == "float";
    const bool is_base64 = format->is_string() && format->get_ref<const std::string&>() == "base64";
    if (!is_float && !is_base64) {
      return bad("\"encoding_format\" must be \"float\" or \"base64\", got " +
                     format->dump(-1, ' ', false, json::error_handler_t::replace),
                 "encoding_format");
    }
    parsed.format = is_base64 ? EncodingFormat::kBase64 : EncodingFormat::kFloat;
  }
  auto dimensions = request.find("dimensions");
  if (dimensions != request.end() && !dimensions->is_null()) {
    if (!dimensions->is_number_integer() ||
        (!dimensions->is_number_unsigned() && dimensions->get<int64_t>() < 1) ||
        dimensions->get<uint64_t>() == 0) {
      return bad("\"dimensions\" must be a positive integer, got " +
                     dimensions->dump(-1, ' ', false, json::error_handler_t::replace),
                 "dimensions");
    }
    parsed.dimensions =
        static_cast<size_t>(std::min<uint64_t>(dimensions->get<uint64_t>(), uint64_t{1} << 40));
  }
  auto user = request.find("user");
  if (user != request.end() && !user->is_null() && !user->is_string()) {
    return bad("\"user\" must be a string, got " + std::string(user->type_name()), "user");
  }
  auto input = request.find("input");
  if (input == request.end()) return bad("/v1/embeddings: missing \"input\"", "input");
  ApiResult<std::vector<EmbeddingInput>> inputs = inputs_of(*input, limits);
  if (!inputs) return inputs.error();
  parsed.inputs = std::move(inputs.value());
  return parsed;
}

}  // namespace normrt::serve
