// POST /v1/embeddings, OpenAI-like:
//   {"input": "text" | ["text", ...], "model"?, "user"?, "encoding_format"?: "float"}
//   → {"object": "list", "data": [{"object": "embedding", "index": i,
//       "embedding": [...], "tokens": n}], "model": name,
//      "usage": {"prompt_tokens": n, "total_tokens": n, "tokens": n}, "latency_ms": x}
// Each text is tokenized (BERT WordPiece: [CLS] ... [SEP], truncated to the
// model's max_sequence_length) and run alone at batch 1; "embedding" is the
// model's output of that name (mean-pooled, L2-normalized by the graph).
// "model" and "user" are accepted and ignored (one model per server).
#include <chrono>
#include <vector>

#include "base/status.h"
#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/tensor_response.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

constexpr const char* kEmbeddingOutput = "embedding";

ApiError bad_request(const std::string& message) { return {400, "invalid_request", message}; }

// The texts of "input": a string or a non-empty array of strings.
ApiResult<std::vector<std::string>> input_texts(const json& request, size_t max_inputs) {
  auto input = request.find("input");
  if (input == request.end()) return bad_request("/v1/embeddings: missing \"input\"");
  if (input->is_string()) return std::vector<std::string>{input->get<std::string>()};
  if (!input->is_array() || input->empty()) {
    return bad_request("\"input\" must be a string or a non-empty array of strings, got " +
                       std::string(input->type_name()) + (input->is_array() ? " (empty)" : ""));
  }
  if (input->size() > max_inputs) {
    return bad_request("\"input\" has " + std::to_string(input->size()) + " texts, at most " +
                       std::to_string(max_inputs) + " per request");
  }
  std::vector<std::string> texts;
  for (size_t i = 0; i < input->size(); ++i) {
    const json& text = (*input)[i];
    if (!text.is_string()) {
      return bad_request("input[" + std::to_string(i) + "] is " + text.type_name() +
                         ", expected a string (token arrays are not accepted: send text)");
    }
    texts.push_back(text.get<std::string>());
  }
  return texts;
}

}  // namespace

Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case) {
  NORMRT_ASSIGN_OR_RETURN(text::WordPieceVocab vocab, text::WordPieceVocab::load(vocab_path));
  text::BertTokenizerOptions options;
  options.basic.lowercase = !keep_case;
  options.basic.strip_accents = !keep_case;
  options.max_length = model.max_sequence_length();
  return text::BertTokenizer::create(std::move(vocab), options);
}

Status ModelService::check_embedding_model() {
  const auto& inputs = model_->inputs();
  if (inputs.size() != 1 || inputs[0].dtype != "i32" ||
      inputs[0].shape != std::vector<int64_t>{-1}) {
    return Status::error(
        "--vocab: /v1/embeddings needs a model with one input, i32 token ids "
        "of shape [S]; this model has " +
        std::to_string(inputs.size()) + " input(s), the first " +
        (inputs.empty() ? "absent" : inputs[0].name + " " + inputs[0].dtype));
  }
  id_input_ = inputs[0].name;
  bool has_embedding = false;
  for (const TensorInfo& output : model_->outputs()) {
    has_embedding = has_embedding || (output.name == kEmbeddingOutput && output.dtype == "f32" &&
                                      output.shape.size() == 2 && output.shape[0] == 1);
  }
  if (!has_embedding) {
    return Status::error(
        "--vocab: /v1/embeddings needs an f32 output 'embedding' of shape "
        "[1, H] (convert with normrt-convert --pooling mean)");
  }
  // The largest id of the vocabulary must be a row of the model's table.
  const text::WordPieceVocab& vocab = tokenizer_->vocab();
  const std::vector<int32_t> probe = {vocab.find("[CLS]"), static_cast<int32_t>(vocab.size() - 1),
                                      vocab.find("[SEP]")};
  SessionPool::Lease lease = pool_->acquire(std::chrono::milliseconds(0), 0);
  Status s = lease.session().set_input(id_input_, probe.data(), probe.size() * sizeof(int32_t));
  if (s) s = lease.session().run();
  if (!s) {
    return Status::error("--vocab: the vocabulary (" + std::to_string(vocab.size()) +
                         " tokens) does not fit the model: " + s.message());
  }
  return Status::ok();
}

Reply ModelService::embeddings(std::string_view body) {
  if (!tokenizer_) {
    return error_reply({404, "embeddings_disabled",
                        "/v1/embeddings is off: start normrt-serve with --vocab vocab.txt"});
  }
  ApiResult<json> request = parse_json_object(body);
  if (!request) return error_reply(request.error());
  auto keys =
      check_keys(request.value(), {"input", "model", "user", "encoding_format"}, "/v1/embeddings");
  if (!keys) return error_reply(keys.error());
  auto format = request->find("encoding_format");
  if (format != request->end() && !(format->is_string() && format->get<std::string>() == "float")) {
    return error_reply(bad_request("\"encoding_format\": only \"float\" is supported"));
  }
  ApiResult<std::vector<std::string>> texts =
      input_texts(request.value(), options_.max_embedding_inputs);
  if (!texts) return error_reply(texts.error());
  std::vector<std::vector<int32_t>> ids;
  size_t tokens = 0;
  for (size_t i = 0; i < texts->size(); ++i) {
    Expected<std::vector<int32_t>> encoded = tokenizer_->encode(texts.value()[i]);
    if (!encoded) {
      return error_reply(
          bad_request("input[" + std::to_string(i) + "]: " + encoded.status().message()));
    }
    tokens += encoded.value().size();
    ids.push_back(std::move(encoded).value());
  }

  ApiResult<SessionPool::Lease> lease = this->lease();
  if (!lease) return error_reply(lease.error());
  Session& session = lease->session();
  const auto start = std::chrono::steady_clock::now();
  Reply reply;
  reply.body = "{\"object\": \"list\", \"data\": [";
  for (size_t i = 0; i < ids.size(); ++i) {
    Status s = session.set_input(id_input_, ids[i].data(), ids[i].size() * sizeof(int32_t));
    if (s) s = session.run();
    if (!s)
      return error_reply(
          {400, "invalid_input", "input[" + std::to_string(i) + "]: " + s.message()});
    Expected<TensorRef> embedding = session.output(kEmbeddingOutput);
    if (!embedding) return error_reply({500, "internal", embedding.status().message()});
    const float* values = embedding->f32();
    if (auto bad = first_non_finite(values, embedding->elements())) {
      return error_reply({422, "non_finite_output",
                          "input[" + std::to_string(i) +
                              "]: the embedding has a non-finite value at index " +
                              std::to_string(*bad)});
    }
    reply.body += std::string(i > 0 ? ", " : "") +
                  "{\"object\": \"embedding\", \"index\": " + std::to_string(i) +
                  ", \"tokens\": " + std::to_string(ids[i].size()) + ", \"embedding\": ";
    append_f32_array(reply.body, values, embedding->elements());
    reply.body += '}';
  }
  const std::string latency = milliseconds_text(std::chrono::steady_clock::now() - start);
  const std::string count = std::to_string(tokens);
  reply.body += "], \"model\": " + json_quote(options_.model_name) +
                ", \"usage\": {\"prompt_tokens\": " + count + ", \"total_tokens\": " + count +
                ", \"tokens\": " + count + "}, \"latency_ms\": " + latency + "}";
  return reply;
}

}  // namespace normrt::serve
