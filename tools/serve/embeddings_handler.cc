// POST /v1/embeddings, OpenAI's embeddings API (embedding_request.h):
//   → {"object": "list", "data": [{"object": "embedding", "index": i,
//       "embedding": [...] | "<base64>", "tokens": n, "truncated": bool}],
//      "model": name, "usage": {"prompt_tokens": n, "total_tokens": n,
//      "tokens": n, "truncated_inputs": k}, "latency_ms": x}
// Texts are tokenized (text_encoding.h: cut to the model's
// max_sequence_length; "truncated" says whether they were); token-id inputs
// run as given. Each input runs alone at batch 1; "embedding" is the model's
// output of that name (mean-pooled, L2-normalized by the graph), as floats
// or as base64 of its little-endian float32 bytes, truncated to
// "dimensions" where allowed (--matryoshka). "model" must name this server's
// model (else 404 model_not_found). "tokens", "truncated",
// "truncated_inputs" and "latency_ms" are extensions OpenAI clients ignore.
#include <chrono>
#include <vector>

#include "tools/serve/embedding_output.h"
#include "tools/serve/embedding_request.h"
#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/tensor_response.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

// The error of a "dimensions" this model cannot give, if any.
std::optional<ApiError> check_dimensions(size_t dimensions, size_t width, bool allowed,
                                         bool normalized, const std::string& model) {
  const std::string has =
      "the model '" + model + "' gives " + std::to_string(width) + "-dimensional embeddings";
  if (dimensions == width) return std::nullopt;
  if (dimensions > width) {
    return ApiError{400, "invalid_dimensions",
                    "\"dimensions\" = " + std::to_string(dimensions) + " is more than " +
                        std::to_string(width) + ": " + has,
                    "dimensions"};
  }
  if (!allowed) {
    return ApiError{400, "invalid_dimensions",
                    "\"dimensions\" = " + std::to_string(dimensions) + ": " + has +
                        " and this server does not truncate them (start normrt-serve with "
                        "--matryoshka for a model trained for truncation; else give " +
                        std::to_string(width) + " or leave \"dimensions\" out)",
                    "dimensions"};
  }
  if (!normalized) {
    return ApiError{400, "invalid_dimensions",
                    "\"dimensions\": " + has +
                        " that are not L2-normalized by the model, so they cannot be "
                        "truncated and re-normalized",
                    "dimensions"};
  }
  return std::nullopt;
}

}  // namespace

Reply ModelService::embeddings(std::string_view body, const RequestControl& control) {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const TextTokenizer* tokenizer = generation->tokenizer();
  if (!generation->embeds_texts()) {
    return error_reply({404, "embeddings_disabled",
                        generation->reranks()
                            ? "/v1/embeddings is off: this model is a reranker (POST /v1/rerank)"
                            : "/v1/embeddings is off: start normrt-serve with --vocab vocab.txt"});
  }
  const size_t max_length = generation->model().max_sequence_length();
  const size_t max_inputs = options_.max_embedding_inputs;
  JsonLimits limits;
  limits.max_values = generation->max_embedding_values();
  const std::string why = "a request has at most " + std::to_string(max_inputs) +
                          " inputs (--max-batch) of at most " + std::to_string(max_length) +
                          " token ids";
  limits.why = why;
  ApiResult<json> document = parse_json_object(body, limits);
  if (!document) return error_reply(document.error());
  EmbeddingRequestLimits request_limits;
  request_limits.max_inputs = max_inputs;
  request_limits.max_ids = max_length;
  request_limits.vocabulary_size = generation->vocabulary_size();
  ApiResult<EmbeddingRequest> request = parse_embedding_request(document.value(), request_limits);
  document.value() = json();  // the texts were moved out; free the rest
  if (!request) return error_reply(request.error());
  if (request->model && !serves(*request->model))
    return error_reply(unknown_model(*request->model));
  const size_t width = generation->embedding_width();
  const size_t dimensions = request->dimensions.value_or(width);
  if (auto error = check_dimensions(dimensions, width, options_.allow_dimensions,
                                    generation->embedding_normalized(), options_.model_name)) {
    return error_reply(*error);
  }

  std::vector<EncodedInput> encoded;
  encoded.reserve(request->inputs.size());
  size_t tokens = 0, truncated = 0;
  for (size_t i = 0; i < request->inputs.size(); ++i) {
    EmbeddingInput& input = request->inputs[i];
    EncodedInput one;
    if (input.is_ids) {
      one.ids = std::move(input.ids);
    } else {
      Expected<EncodedInput> text = encode_text(*tokenizer, input.text, max_length);
      if (!text) {
        return error_reply({400, "invalid_request",
                            "input[" + std::to_string(i) + "]: " + text.status().message(),
                            "input"});
      }
      std::string().swap(input.text);  // its ids are all that is needed now
      one = std::move(text).value();
    }
    tokens += one.ids.size();
    truncated += one.truncated ? 1 : 0;
    encoded.push_back(std::move(one));
  }

  const bool base64 = request->format == EncodingFormat::kBase64;
  const auto start = std::chrono::steady_clock::now();
  Reply reply;
  reply.body = "{\"object\": \"list\", \"data\": [";
  auto emit = [&](size_t i, const float* values) -> std::optional<ApiError> {
    std::vector<float> cut;
    if (dimensions < width) {
      cut = truncate_and_normalize(values, dimensions);
      values = cut.data();
    }
    reply.body += std::string(i > 0 ? ", " : "") +
                  "{\"object\": \"embedding\", \"index\": " + std::to_string(i) +
                  ", \"tokens\": " + std::to_string(encoded[i].ids.size()) +
                  ", \"truncated\": " + (encoded[i].truncated ? "true" : "false") +
                  ", \"embedding\": ";
    if (base64) {
      reply.body += '"';
      append_f32_base64(reply.body, values, dimensions);
      reply.body += '"';
    } else {
      append_f32_array(reply.body, values, dimensions);
    }
    reply.body += '}';
    return std::nullopt;
  };
  if (std::optional<Reply> stopped = embed_each(*generation, encoded, control, emit, false)) {
    return std::move(*stopped);
  }
  metrics_.add_work("/v1/embeddings", tokens, encoded.size());
  reply.inputs_done = static_cast<long>(encoded.size());
  const std::string latency = milliseconds_text(std::chrono::steady_clock::now() - start);
  const std::string count = std::to_string(tokens);
  reply.body += "], \"model\": " + json_quote(options_.model_name) +
                ", \"usage\": {\"prompt_tokens\": " + count + ", \"total_tokens\": " + count +
                ", \"tokens\": " + count + ", \"truncated_inputs\": " + std::to_string(truncated) +
                "}, \"latency_ms\": " + latency + "}";
  return reply;
}

}  // namespace normrt::serve
