// POST /v2/models/{name}[/versions/1]/infer (KServe v2 / Open Inference
// Protocol, REST; the request's form: v2_request.h). Two kinds of request:
//   - the model's own inputs, each FP32 (f32 inputs) or INT32 / INT64 (i32
//     inputs, range-checked), checked as /v1/run checks them
//     (tensor_request.h), run once; the outputs are the model's;
//   - with a tokenizer, one input "text", BYTES of shape [N] or [N, 1]
//     (1 ≤ N ≤ --max-batch texts), each tokenized and embedded as
//     /v1/embeddings does; the output "embedding" is FP32 [N, H].
// Outputs are JSON ("data", flat, row-major) or, when asked ("binary_data",
// "binary_data_output"), binary: the reply is then the JSON header followed
// by the outputs' little-endian bytes, with Inference-Header-Content-Length.
// The request's "id" is echoed; "model_version" is "1". Errors:
// {"error": "<message>"}.
#include <cmath>
#include <cstring>
#include <limits>

#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/tensor_response.h"
#include "tools/serve/v2_request.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

constexpr const char* kTextInput = "text";
constexpr const char* kEmbeddingOutput = "embedding";
constexpr const char* kEndpoint = "/v2/models/{name}/infer";

ApiError bad(const std::string& message) { return {400, "invalid_request", message}; }

// The outputs of one reply: their JSON entries and, for binary ones, bytes.
class V2Reply {
 public:
  std::optional<ApiError> add(const std::string& name, std::string_view dtype,
                              const std::vector<int64_t>& shape, const void* data, size_t count,
                              bool binary) {
    std::string entry = "{\"name\": " + json_quote(name) + ", \"datatype\": \"" +
                        v2_datatype(dtype) + "\", \"shape\": [";
    for (size_t axis = 0; axis < shape.size(); ++axis) {
      entry += (axis > 0 ? "," : "") + std::to_string(shape[axis]);
    }
    entry += "], ";
    const bool f32 = dtype == "f32";
    if (binary) {
      const size_t bytes = count * 4;
      entry += "\"parameters\": {\"binary_data_size\": " + std::to_string(bytes) + "}}";
      const auto* words = static_cast<const uint32_t*>(data);
      for (size_t i = 0; i < count; ++i) {  // little-endian whatever the host
        for (int b = 0; b < 4; ++b) binary_ += static_cast<char>(words[i] >> (8 * b));
      }
      any_binary_ = true;
    } else {
      entry += "\"data\": ";
      if (f32) {
        const auto* values = static_cast<const float*>(data);
        if (auto bad_index = first_non_finite(values, count)) {
          return ApiError{422, "non_finite_output",
                          "output '" + name + "' has a non-finite value at index " +
                              std::to_string(*bad_index) +
                              " (JSON cannot carry it; ask for it as binary data)"};
        }
        append_f32_array(entry, values, count);
      } else {
        const auto* ids = static_cast<const int32_t*>(data);
        entry += '[';
        for (size_t i = 0; i < count; ++i) entry += (i > 0 ? "," : "") + std::to_string(ids[i]);
        entry += ']';
      }
      entry += '}';
    }
    outputs_ += (outputs_.empty() ? "" : ", ") + entry;
    return std::nullopt;
  }

  Reply finish(const std::string& model, const std::optional<std::string>& id) {
    Reply reply;
    reply.body = "{\"model_name\": " + json_quote(model) + ", \"model_version\": \"1\"" +
                 (id ? ", \"id\": " + json_quote(*id) : std::string()) + ", \"outputs\": [" +
                 outputs_ + "]}";
    if (any_binary_) {
      reply.headers.emplace_back("Inference-Header-Content-Length",
                                 std::to_string(reply.body.size()));
      reply.content_type = "application/octet-stream";
      reply.body += binary_;
    }
    return reply;
  }

 private:
  std::string outputs_, binary_;
  bool any_binary_ = false;
};

// One model input from a v2 input of the right datatype.
ApiResult<InputTensor> model_input(const TensorInfo& info, V2Input& input, size_t max_length) {
  const std::string where = "input '" + input.name + "'";
  const bool i32 = info.dtype == "i32";
  const bool fits = i32 ? (input.datatype == "INT32" || input.datatype == "INT64")
                        : (info.dtype == "f32" && input.datatype == "FP32");
  if (!fits) {
    return bad(where + " has datatype " + input.datatype + "; the model's input is " +
               v2_datatype(info.dtype) + (i32 ? " (INT32 or INT64)" : ""));
  }
  json shape = input.shape;
  if (!input.binary) {
    json spec = {{"shape", std::move(shape)}, {"data", std::move(input.data)}};
    return decode_input(info, spec, max_length);
  }
  const size_t width = input.datatype == "INT64" ? 8 : 4;
  if (input.bytes.size() != input.elements * width) {
    return bad(where + ": " + std::to_string(input.bytes.size()) +
               " bytes of binary data for shape " + shape.dump() + " of " + input.datatype +
               ", expected " + std::to_string(input.elements * width));
  }
  ApiResult<std::vector<int64_t>> resolved =
      resolve_shape(info, &shape, input.elements, max_length);
  if (!resolved) return resolved.error();
  InputTensor tensor;
  tensor.name = info.name;
  tensor.shape = std::move(resolved.value());
  tensor.is_i32 = i32;
  const auto* bytes = reinterpret_cast<const unsigned char*>(input.bytes.data());
  for (size_t i = 0; i < input.elements; ++i) {
    uint64_t word = 0;
    for (size_t b = 0; b < width; ++b) word |= uint64_t{bytes[i * width + b]} << (8 * b);
    if (!i32) {
      float value;
      const auto bits = static_cast<uint32_t>(word);
      std::memcpy(&value, &bits, 4);
      if (!std::isfinite(value)) {
        return ApiError{400, "non_finite_input",
                        where + ": data[" + std::to_string(i) + "] is not finite"};
      }
      tensor.f32.push_back(value);
      continue;
    }
    const int64_t id =
        width == 8 ? static_cast<int64_t>(word) : static_cast<int64_t>(static_cast<int32_t>(word));
    if (id < std::numeric_limits<int32_t>::min() || id > std::numeric_limits<int32_t>::max()) {
      return bad(where + ": data[" + std::to_string(i) + "] = " + std::to_string(id) +
                 " is outside the i32 range");
    }
    tensor.i32.push_back(static_cast<int32_t>(id));
  }
  return tensor;
}

}  // namespace

Reply ModelService::v2_infer(std::string_view name, std::string_view version, std::string_view body,
                             std::optional<size_t> json_bytes, const RequestControl& control) {
  if (auto error = v2_check_model(name, version)) return v2_error_reply(*error);
  const std::shared_ptr<const ModelGeneration> generation = current();
  const Model& model = generation->model();
  std::string_view header = body, binary;
  if (json_bytes) {
    if (*json_bytes > body.size()) {
      return v2_error_reply(bad("Inference-Header-Content-Length " + std::to_string(*json_bytes) +
                                " is more than the body's " + std::to_string(body.size()) +
                                " bytes"));
    }
    header = body.substr(0, *json_bytes);
    binary = body.substr(*json_bytes);
  }
  JsonLimits limits;
  limits.max_values = generation->max_run_values() +
                      (generation->embeds_texts() ? generation->max_embedding_values() : 0);
  const std::string why = "more than this model's inputs (or --max-batch texts) can hold";
  limits.why = why;
  ApiResult<json> document = parse_json_object(header, limits);
  if (!document) return v2_error_reply(document.error());
  ApiResult<V2Request> request = parse_v2_request(document.value(), binary);
  if (!request) return v2_error_reply(request.error());
  const std::string model_name = options_.model_name;

  bool texts = false;
  for (const V2Input& input : request->inputs) texts = texts || input.datatype == "BYTES";
  if (texts) {
    const TextTokenizer* tokenizer = generation->tokenizer();
    if (!generation->embeds_texts()) {
      return v2_error_reply(
          bad(generation->reranks()
                  ? "this model scores text pairs: BYTES inputs are for embedding models (POST "
                    "/v1/rerank)"
                  : "this model takes no text: BYTES inputs need a tokenizer "
                    "(start normrt-serve with --vocab)"));
    }
    V2Input& input = request->inputs[0];
    const bool shape_ok =
        (input.shape.size() == 1 || (input.shape.size() == 2 && input.shape[1] == 1)) &&
        input.shape[0] >= 1;
    if (request->inputs.size() != 1 || input.name != kTextInput || input.datatype != "BYTES" ||
        !shape_ok) {
      return v2_error_reply(
          bad("texts go alone in the input \"text\", BYTES of shape [N] or [N, 1] (N ≥ 1); "
              "the model's own inputs are the other way to call it"));
    }
    if (input.elements > options_.max_embedding_inputs) {
      return v2_error_reply(bad("input 'text' has " + std::to_string(input.elements) +
                                " texts, at most " + std::to_string(options_.max_embedding_inputs) +
                                " per request (--max-batch)"));
    }
    for (const V2Output& output : request->outputs) {
      if (output.name != kEmbeddingOutput) {
        return v2_error_reply(bad("output '" + output.name +
                                  "': a request of texts has the one output \"embedding\""));
      }
    }
    ApiResult<std::vector<std::string>> strings = v2_bytes_elements(input);
    if (!strings) return v2_error_reply(strings.error());
    if (strings->size() != input.elements) {
      return v2_error_reply(bad("input 'text' has " + std::to_string(strings->size()) +
                                " elements, its shape says " + std::to_string(input.elements)));
    }
    const size_t max_length = model.max_sequence_length();
    std::vector<EncodedInput> encoded;
    size_t tokens = 0;
    for (size_t i = 0; i < strings->size(); ++i) {
      Expected<EncodedInput> one = encode_text(*tokenizer, strings.value()[i], max_length);
      if (!one) {
        return v2_error_reply(
            bad("input 'text': element " + std::to_string(i) + ": " + one.status().message()));
      }
      std::string().swap(strings.value()[i]);
      tokens += one->ids.size();
      encoded.push_back(std::move(one).value());
    }
    const size_t width = generation->embedding_width();
    std::vector<float> rows(encoded.size() * width);
    auto keep = [&](size_t i, const float* row) -> std::optional<ApiError> {
      std::copy(row, row + width, rows.begin() + static_cast<std::ptrdiff_t>(i * width));
      return std::nullopt;
    };
    if (std::optional<Reply> stopped = embed_each(*generation, encoded, control, keep, true)) {
      return std::move(*stopped);
    }
    metrics_.add_work(kEndpoint, tokens, encoded.size());
    V2Reply reply;
    const bool binary_output =
        request->outputs.empty() ? request->binary_outputs : request->outputs[0].binary;
    const std::vector<int64_t> shape = {static_cast<int64_t>(encoded.size()),
                                        static_cast<int64_t>(width)};
    if (auto error =
            reply.add(kEmbeddingOutput, "f32", shape, rows.data(), rows.size(), binary_output)) {
      return v2_error_reply(*error);
    }
    return reply.finish(model_name, request->id);
  }

  // The model's own inputs.
  std::string names;
  for (const TensorInfo& info : model.inputs()) {
    names += (names.empty() ? "" : ", ") + info.name + " " + v2_datatype(info.dtype) + " " +
             declared_shape_string(info.shape);
  }
  for (const V2Input& input : request->inputs) {
    bool known = false;
    for (const TensorInfo& info : model.inputs()) known = known || info.name == input.name;
    if (!known) {
      return v2_error_reply(
          bad("the model has no input '" + input.name + "' (its inputs: " + names + ")"));
    }
  }
  std::vector<InputTensor> inputs;
  size_t tokens = 0;
  for (const TensorInfo& info : model.inputs()) {
    V2Input* given = nullptr;
    for (V2Input& input : request->inputs) given = input.name == info.name ? &input : given;
    if (given == nullptr) {
      return v2_error_reply(
          bad("missing input '" + info.name + "' (the model's inputs: " + names + ")"));
    }
    ApiResult<InputTensor> tensor = model_input(info, *given, model.max_sequence_length());
    if (!tensor) return v2_error_reply(tensor.error());
    tokens += tensor->is_i32 ? tensor->i32.size() : 0;
    inputs.push_back(std::move(tensor.value()));
  }
  std::vector<V2Output> outputs = request->outputs;
  for (const V2Output& output : outputs) {
    bool known = false;
    for (const TensorInfo& info : model.outputs()) known = known || info.name == output.name;
    if (!known) return v2_error_reply(bad("the model has no output '" + output.name + "'"));
  }
  if (outputs.empty()) {
    for (const TensorInfo& info : model.outputs()) {
      outputs.push_back({info.name, request->binary_outputs});
    }
  }

  std::chrono::steady_clock::duration elapsed{};
  ApiResult<SessionPool::Lease> lease = run_inputs(*generation, inputs, control, &elapsed);
  if (!lease) {
    if (lease.error().status == kClientClosedRequest) return client_gone_reply();
    return v2_error_reply(lease.error());
  }
  metrics_.add_work(kEndpoint, tokens, 0);
  V2Reply reply;
  for (const V2Output& output : outputs) {
    Expected<TensorRef> tensor = lease->session().output(output.name);
    if (!tensor) return v2_error_reply({500, "internal", tensor.status().message()});
    std::vector<int64_t> shape;
    for (size_t axis = 0; axis < tensor->shape.size(); ++axis) shape.push_back(tensor->shape[axis]);
    if (auto error = reply.add(output.name, tensor->dtype, shape, tensor->data, tensor->elements(),
                               output.binary)) {
      return v2_error_reply(*error);
    }
  }
  return reply.finish(model_name, request->id);
}

}  // namespace normrt::serve
