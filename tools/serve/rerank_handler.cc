// POST /v1/rerank: documents scored against a query by a cross-encoder
// reranker (a one-label sequence classifier: is_reranker()), in the shape of
// the rerank APIs of Cohere, Jina and Hugging Face TEI:
//   {"query": "...", "documents": ["..." | {"text": "..."}, ...],
//    "top_n": n?, "return_documents": bool?, "model": name?}
//   → {"model": name, "results": [{"index": i, "relevance_score": s,
//       "document": {"text": "..."}?}, ...],
//      "usage": {"total_tokens": n}, "latency_ms": x}
// results are best first (ties: the lower index first), top_n of them (all
// by default). relevance_score is sigmoid(logit), as sentence-transformers'
// CrossEncoder scores a one-label model. Each (query, document) pair is
// joined by the stored tokenizer's pair template and cut to the model's
// length, the query tokenized once (rerank_pairs.h); the pairs run on one
// worker, in padded batches of --run-batch (rerank_scoring.h), and a client
// that leaves or a passed deadline stops the work between runs.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/rerank_pairs.h"
#include "tools/serve/rerank_scoring.h"
#include "tools/serve/tensor_response.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

struct RerankRequest {
  std::string query;
  std::vector<std::string> documents;
  size_t top_n = 0;  // 0: all
  bool return_documents = false;
  std::optional<std::string> model;
};

ApiError bad(std::string message, std::string param) {
  return ApiError{400, "invalid_request", std::move(message), std::move(param)};
}

ApiResult<RerankRequest> parse_rerank_request(json& body, size_t max_documents) {
  if (auto keys = check_keys(body, {"query", "documents", "top_n", "return_documents", "model"},
                             "/v1/rerank");
      !keys) {
    return keys.error();
  }
  RerankRequest request;
  auto query = body.find("query");
  if (query == body.end() || !query->is_string())
    return bad("\"query\" must be a string (the text the documents are scored against)", "query");
  request.query = std::move(query->get_ref<std::string&>());
  auto documents = body.find("documents");
  if (documents == body.end() || !documents->is_array() || documents->empty()) {
    return bad("\"documents\" must be a non-empty array of strings (or of {\"text\": string})",
               "documents");
  }
  if (documents->size() > max_documents) {
    return bad("\"documents\" holds " + std::to_string(documents->size()) +
                   " documents; this server takes at most " + std::to_string(max_documents) +
                   " per request (--max-batch)",
               "documents");
  }
  for (size_t i = 0; i < documents->size(); ++i) {
    json& document = (*documents)[i];
    json* text = &document;
    if (document.is_object()) {
      auto field = document.find("text");
      text = field == document.end() ? nullptr : &*field;
    }
    if (text == nullptr || !text->is_string()) {
      return bad("documents[" + std::to_string(i) + "] must be a string or {\"text\": string}",
                 "documents");
    }
    request.documents.push_back(std::move(text->get_ref<std::string&>()));
  }
  if (auto top_n = body.find("top_n"); top_n != body.end()) {
    if (!top_n->is_number_integer() || top_n->get<int64_t>() < 1)
      return bad("\"top_n\" must be an integer ≥ 1", "top_n");
    request.top_n = static_cast<size_t>(top_n->get<int64_t>());
  }
  if (auto flag = body.find("return_documents"); flag != body.end()) {
    if (!flag->is_boolean())
      return bad("\"return_documents\" must be true or false", "return_documents");
    request.return_documents = flag->get<bool>();
  }
  if (auto model = body.find("model"); model != body.end()) {
    if (!model->is_string()) return bad("\"model\" must be a string", "model");
    request.model = model->get<std::string>();
  }
  return request;
}

}  // namespace

Reply ModelService::rerank(std::string_view body, const RequestControl& control) {
  const std::shared_ptr<const ModelGeneration> generation = current();
  if (!generation->reranks()) {
    return error_reply({404, "rerank_disabled",
                        "/v1/rerank is off: it needs a one-label sequence classifier (logits "
                        "[1, 1]) converted with its tokenizer (normrt-convert --model DIR)"});
  }
  const size_t max_documents = options_.max_embedding_inputs;
  JsonLimits limits;
  limits.max_values = 2 * max_documents + 16;
  const std::string why =
      "a request has at most " + std::to_string(max_documents) + " documents (--max-batch)";
  limits.why = why;
  ApiResult<json> document = parse_json_object(body, limits);
  if (!document) return error_reply(document.error());
  ApiResult<RerankRequest> request = parse_rerank_request(document.value(), max_documents);
  if (!request) return error_reply(request.error());
  if (request->model && !serves(*request->model))
    return error_reply(unknown_model(*request->model));

  ApiResult<std::vector<EncodedPair>> pairs =
      encode_rerank_pairs(*generation->tokenizer(), request->query, request->documents,
                          generation->model().max_sequence_length());
  if (!pairs) return error_reply(pairs.error());
  size_t tokens = 0;
  for (const EncodedPair& pair : pairs.value()) tokens += pair.ids.size();

  const auto start = std::chrono::steady_clock::now();
  ApiResult<SessionPool::Lease> lease = this->lease(*generation, control);
  if (!lease) return error_reply(lease.error());
  std::vector<double> scores;
  if (std::optional<Reply> stopped =
          score_pairs(*generation, lease->session(), pairs.value(), control, scores)) {
    return std::move(*stopped);
  }
  metrics_.add_work("/v1/rerank", tokens, pairs->size());

  std::vector<size_t> order(pairs->size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  const size_t count = request->top_n == 0 ? order.size() : std::min(request->top_n, order.size());
  Reply reply;
  reply.body = "{\"model\": " + json_quote(options_.model_name) + ", \"results\": [";
  for (size_t r = 0; r < count; ++r) {
    const size_t i = order[r];
    reply.body += std::string(r > 0 ? ", " : "") + "{\"index\": " + std::to_string(i) +
                  ", \"relevance_score\": " + json(scores[i]).dump();
    if (request->return_documents)
      reply.body += ", \"document\": {\"text\": " + json_quote(request->documents[i]) + "}";
    reply.body += "}";
  }
  reply.inputs_done = static_cast<long>(pairs->size());
  reply.body +=
      "], \"usage\": {\"total_tokens\": " + std::to_string(tokens) +
      "}, \"latency_ms\": " + milliseconds_text(std::chrono::steady_clock::now() - start) + "}";
  return reply;
}

}  // namespace normrt::serve
