// KServe v2 / Open Inference Protocol: health and metadata.
//   GET /v2/health/live, /v2/health/ready      200, empty body (the server answers: it is
//                                              live, and its one model is loaded: ready)
//   GET /v2                                    {"name": "normrt", "version", "extensions"}
//   GET /v2/models/{name}[/versions/1]         {"name", "versions": ["1"], "platform": "normrt",
//                                               "inputs": [...], "outputs": [...]}
//   GET /v2/models/{name}[/versions/1]/ready   200, empty body
// Tensors: {"name", "datatype" (FP32, INT32, BYTES), "shape"} with -1 for
// the sequence length S. With a tokenizer the model also takes "text",
// BYTES [-1] (N texts) instead of its own inputs, and "embedding" is then
// [N, H]: its shape is given as [-1, H]. An unknown model or version: 404.
#include <nlohmann/json.hpp>

#include "tools/serve/model_service.h"
#include "tools/serve/v2_request.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

Reply empty_ok() { return ok_reply(""); }

}  // namespace

Reply ModelService::v2_live() const { return empty_ok(); }

Reply ModelService::v2_ready() const { return empty_ok(); }

Reply ModelService::v2_server_metadata() const {
  json metadata = {{"name", "normrt"},
                   {"version", normrt::version()},
                   {"extensions", json::array({"binary_tensor_data"})}};
  return ok_reply(dump(metadata));
}

std::optional<ApiError> ModelService::v2_check_model(std::string_view name,
                                                     std::string_view version) const {
  if (!serves(name)) {
    ApiError error = unknown_model(name);
    error.message = "the model '" + std::string(name) +
                    "' is not served here (this server serves '" + options_.model_name + "')";
    return error;
  }
  if (!version.empty() && version != "1") {
    return ApiError{404, "model_version_not_found",
                    "the model '" + std::string(name) + "' has no version '" +
                        std::string(version) + "' (its only version is \"1\")"};
  }
  return std::nullopt;
}

Reply ModelService::v2_model_metadata(std::string_view name, std::string_view version) const {
  if (auto error = v2_check_model(name, version)) return v2_error_reply(*error);
  const std::shared_ptr<const ModelGeneration> generation = current();
  const Model& model = generation->model();
  const bool texts = generation->embeds_texts();
  json inputs = json::array(), outputs = json::array();
  for (const TensorInfo& info : model.inputs()) {
    inputs.push_back(
        {{"name", info.name}, {"datatype", v2_datatype(info.dtype)}, {"shape", info.shape}});
  }
  if (texts) inputs.push_back({{"name", "text"}, {"datatype", "BYTES"}, {"shape", {-1}}});
  for (const TensorInfo& info : model.outputs()) {
    std::vector<int64_t> shape = info.shape;
    if (texts && info.name == "embedding") shape[0] = -1;
    outputs.push_back(
        {{"name", info.name}, {"datatype", v2_datatype(info.dtype)}, {"shape", shape}});
  }
  json metadata = {{"name", std::string(name)},
                   {"versions", json::array({"1"})},
                   {"platform", "normrt"},
                   {"inputs", inputs},
                   {"outputs", outputs}};
  return ok_reply(dump(metadata));
}

Reply ModelService::v2_model_ready(std::string_view name, std::string_view version) const {
  if (auto error = v2_check_model(name, version)) return v2_error_reply(*error);
  return empty_ok();
}

}  // namespace normrt::serve
