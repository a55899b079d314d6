// POST /v1/run: {"inputs": {...}, "outputs": ["name", ...]?} →
// {"outputs": {"name": {"dtype", "shape", "data"}}, "latency_ms": x}.
// latency_ms is the time of binding the inputs and running the model (what
// the worker spent), not the request's time on the wire.
#include <chrono>
#include <vector>

#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/tensor_request.h"
#include "tools/serve/tensor_response.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

// The outputs to return: all the model's, or the request's "outputs" list.
ApiResult<std::vector<std::string>> selected_outputs(const json& request, const Model& model) {
  std::vector<std::string> names;
  std::string known;
  for (const TensorInfo& info : model.outputs()) known += (known.empty() ? "" : ", ") + info.name;
  auto list = request.find("outputs");
  if (list == request.end()) {
    for (const TensorInfo& info : model.outputs()) names.push_back(info.name);
    return names;
  }
  if (!list->is_array() || list->empty()) {
    return ApiError{
        400, "invalid_request",
        "\"outputs\" must be a non-empty array of output names (the model's: " + known + ")"};
  }
  for (const json& name : *list) {
    bool found = false;
    for (const TensorInfo& info : model.outputs()) {
      found = found || (name.is_string() && name.get_ref<const std::string&>() == info.name);
    }
    if (!found) {
      return ApiError{400, "invalid_request",
                      "\"outputs\": the model has no output " +
                          name.dump(-1, ' ', false, json::error_handler_t::replace) +
                          " (its outputs: " + known + ")"};
    }
    bool repeated = false;
    for (const std::string& earlier : names)
      repeated = repeated || earlier == name.get<std::string>();
    if (!repeated) names.push_back(name.get<std::string>());
  }
  return names;
}

}  // namespace

ApiResult<SessionPool::Lease> ModelService::run_inputs(
    const ModelGeneration& generation, const std::vector<InputTensor>& inputs,
    const RequestControl& control, std::chrono::steady_clock::duration* elapsed) const {
  ApiResult<SessionPool::Lease> lease = this->lease(generation, control);
  if (!lease) return lease;
  if (control.abandoned()) return ApiError{kClientClosedRequest, "client_gone", "the client left"};
  Session& session = lease->session();
  // Stateless per request: a model with state starts every request from zero.
  if (!generation.model().states().empty()) session.reset();
  const auto start = std::chrono::steady_clock::now();
  for (const InputTensor& input : inputs) {
    if (Status s = session.set_input(input.name, input.data(), input.bytes()); !s) {
      return ApiError{400, "invalid_input", s.message()};
    }
  }
  // What is left to fail is data-dependent (a token id outside the
  // vocabulary, inputs disagreeing on S): the runtime's message says which.
  if (Status s = session.run(); !s) return ApiError{400, "invalid_input", s.message()};
  *elapsed = std::chrono::steady_clock::now() - start;
  return lease;
}

Reply ModelService::run(std::string_view body, const RequestControl& control) {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const Model& model = generation->model();
  const std::string why = "this model's inputs hold at most " +
                          std::to_string(generation->max_input_elements()) +
                          " numbers (every input at S = max_sequence_length)";
  JsonLimits limits;
  limits.max_values = generation->max_run_values();
  limits.why = why;
  ApiResult<json> request = parse_json_object(body, limits);
  if (!request) return error_reply(request.error());
  if (auto keys = check_keys(request.value(), {"inputs", "outputs"}, "/v1/run"); !keys) {
    return error_reply(keys.error());
  }
  auto inputs_value = request->find("inputs");
  if (inputs_value == request->end()) {
    return error_reply({400, "invalid_request", "/v1/run: missing \"inputs\""});
  }
  ApiResult<std::vector<InputTensor>> inputs = decode_inputs(*inputs_value, model);
  if (!inputs) return error_reply(inputs.error());
  ApiResult<std::vector<std::string>> outputs = selected_outputs(request.value(), model);
  if (!outputs) return error_reply(outputs.error());

  std::chrono::steady_clock::duration elapsed{};
  ApiResult<SessionPool::Lease> lease = run_inputs(*generation, inputs.value(), control, &elapsed);
  if (!lease) {
    if (lease.error().status == kClientClosedRequest) return client_gone_reply();
    return error_reply(lease.error());
  }
  Session& session = lease->session();
  size_t tokens = 0;
  for (const InputTensor& input : inputs.value()) tokens += input.is_i32 ? input.i32.size() : 0;
  metrics_.add_work("/v1/run", tokens, 0);

  Reply reply;
  reply.body = "{\"outputs\": {";
  for (size_t i = 0; i < outputs->size(); ++i) {
    const std::string& name = outputs.value()[i];
    Expected<TensorRef> tensor = session.output(name);
    if (!tensor) return error_reply({500, "internal", tensor.status().message()});
    reply.body += (i > 0 ? ", " : "") + json_quote(name) + ": ";
    if (auto error = append_tensor_json(reply.body, name, tensor.value())) {
      return error_reply(*error);
    }
  }
  reply.body += "}, \"latency_ms\": " + milliseconds_text(elapsed) + "}";
  return reply;
}

}  // namespace normrt::serve
