#pragma once
// The serving logic, free of HTTP: the current model generation (a shared
// Model, its pool of Sessions, its tokenizer), and a handler per endpoint
// taking the request body and returning a Reply. The HTTP layer
// (http_server.h) routes to these; tests call them directly.
//
//   POST /v1/run          run()          {"inputs": {...}, "outputs": [names]?}
//   POST /v1/embeddings   embeddings()   OpenAI's embeddings API (embedding_request.h)
//   POST /v1/rerank       rerank()       documents scored against a query (rerank_handler.cc)
//   GET  /v1/models[/id]  models(), model_object()   OpenAI's model list
//   GET  /v1/model        model_info()
//   GET  /v1/health       health()
//   GET  /v2 ...          v2_*()         KServe v2 / Open Inference Protocol (REST)
//   GET  /metrics         metrics_text() Prometheus (metrics.h)
//
// /v1/run is stateless per request: a model with state (an RNN, a KV cache)
// is reset() before every run, so each request starts from zero state. Every
// handler is safe to call from many threads at once, and at the same time as
// replace_model(): a request finishes on the generation it started on.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/serve/metrics.h"
#include "tools/serve/model_generation.h"
#include "tools/serve/reply.h"
#include "tools/serve/request_control.h"
#include "tools/serve/session_pool.h"
#include "tools/serve/tensor_request.h"
#include "tools/serve/text_encoding.h"

namespace normrt::serve {

struct ServiceOptions {
  size_t workers = 1;  ///< sessions: requests that run at once
  /// Requests allowed to wait for a worker; one more is refused with 503.
  size_t max_waiting = 64;
  /// How long a request may wait for a worker before a 503.
  std::chrono::milliseconds queue_timeout{10000};
  /// Inputs per /v1/embeddings request, texts per v2 request (--max-batch).
  size_t max_embedding_inputs = 2048;
  /// Sequences per run (--run-batch, 32 for normrt-serve): a request's texts
  /// run in batches of up to this many, sorted by length; 1, or a model that
  /// runs one sequence at a time, runs them one by one (each embedding then
  /// bit-identical to a direct run; a batch's agree within 1e-6 relative).
  size_t run_batch = 1;
  /// Dynamic batching (--batch-wait-ms, --max-batch-texts): concurrent
  /// embedding requests of at most max_texts texts run together in one batch
  /// (request_merger.h). Off by default.
  MergeOptions merge;
  /// The name clients address the model by (--served-name; the file's stem
  /// by default): "model" in replies, /v1/models, /v2/models/{name}.
  std::string model_name = "normrt";
  /// Further names requests may give ("model", /v2/models/{name}); replies
  /// use model_name.
  std::vector<std::string> model_aliases;
  /// --matryoshka: "dimensions" below the model's width truncates and
  /// re-normalizes (the model must end in an L2Normalize).
  bool allow_dimensions = false;
};

class ModelService {
 public:
  /// `tokenizer` (from load_tokenizer()) enables /v1/embeddings; see
  /// ModelGeneration::create() for what the model must then have. An error
  /// says which condition fails.
  static Expected<std::unique_ptr<ModelService>> create(
      std::shared_ptr<const Model> model, const ServiceOptions& options,
      std::optional<TextTokenizer> tokenizer = std::nullopt);

  Reply run(std::string_view body, const RequestControl& control = {});
  Reply embeddings(std::string_view body, const RequestControl& control = {});
  Reply rerank(std::string_view body, const RequestControl& control = {});
  Reply model_info() const;
  Reply health() const;
  /// OpenAI's GET /v1/models and GET /v1/models/{id} (404 model_not_found).
  Reply models() const;
  Reply model_object(std::string_view id) const;

  /// KServe v2: GET /v2/health/live and /ready (200, empty body), GET /v2,
  /// GET /v2/models/{name}[/versions/{version}] and .../ready, POST .../infer
  /// (v2_infer.cc). `version` is "" when the path has none. `json_bytes`: the
  /// Inference-Header-Content-Length header (the binary tensor extension),
  /// absent when the body is all JSON.
  Reply v2_live() const;
  Reply v2_ready() const;
  Reply v2_server_metadata() const;
  Reply v2_model_metadata(std::string_view name, std::string_view version) const;
  Reply v2_model_ready(std::string_view name, std::string_view version) const;
  Reply v2_infer(std::string_view name, std::string_view version, std::string_view body,
                 std::optional<size_t> json_bytes, const RequestControl& control = {});

  /// GET /metrics: the Prometheus text of metrics(), with the pool's and
  /// `inflight`'s gauges.
  Reply metrics_text(const InflightGauge& inflight = {}) const;
  ServeMetrics& metrics() { return metrics_; }

  /// Whether requests may name the model `name` (model_name or an alias).
  bool serves(std::string_view name) const;
  const std::string& model_name() const { return options_.model_name; }

  /// Makes `model` (with `tokenizer`, needed iff embeddings are enabled) the
  /// model of every request that starts from now on, once its sessions are
  /// made and it passed the checks of create(); requests in flight finish on
  /// the old one. On an error nothing changes. Thread-safe.
  Status replace_model(std::shared_ptr<const Model> model,
                       std::optional<TextTokenizer> tokenizer = std::nullopt);

  /// The generation new requests start on.
  std::shared_ptr<const ModelGeneration> current() const;
  /// The worst-case memory of one request whose body has `body_bytes`
  /// (what the HTTP layer reserves from --max-inflight-bytes).
  size_t request_bytes(size_t body_bytes) const;

  /// The current generation's model and pool (for tests and start-up messages).
  const Model& model() const { return current()->model(); }
  SessionPool& pool() { return current()->pool(); }

 private:
  ModelService() = default;
  /// A session of `generation`, or the 503 (or 504 past the deadline) that refuses the request.
  ApiResult<SessionPool::Lease> lease(const ModelGeneration& generation,
                                      const RequestControl& control) const;
  /// A session that ran `inputs` (reset first if the model has state): its
  /// outputs are read while the lease is held. `elapsed`: binding and running.
  /// A client gone before the run: a 499 error (status kClientClosedRequest).
  ApiResult<SessionPool::Lease> run_inputs(const ModelGeneration& generation,
                                           const std::vector<InputTensor>& inputs,
                                           const RequestControl& control,
                                           std::chrono::steady_clock::duration* elapsed) const;
  /// Runs `encoded` (alone at batch 1, in batches of --run-batch, or merged
  /// with other requests' texts under --batch-wait-ms) and hands each
  /// "embedding" row (the model's width) to `emit` in the request's order,
  /// stopping between runs once the deadline passed (504) or the client left
  /// (499); an error of `emit` stops too. Returns the reply that stopped it,
  /// or nothing when all ran.
  using EmitEmbedding = std::function<std::optional<ApiError>(size_t index, const float* row)>;
  std::optional<Reply> embed_each(const ModelGeneration& generation,
                                  const std::vector<EncodedInput>& encoded,
                                  const RequestControl& control, const EmitEmbedding& emit,
                                  bool v2_errors) const;
  /// embed_each's batched path (--run-batch > 1): batches sorted by length,
  /// the embeddings emitted in the request's order at the end.
  std::optional<Reply> embed_batches(
      const ModelGeneration& generation, Session& session, const std::vector<EncodedInput>& encoded,
      const RequestControl& control, const EmitEmbedding& emit,
      const std::function<Reply(const ApiError&, size_t)>& fail) const;
  /// embed_each's merged path: `encoded` joins a batch of other requests'
  /// texts (request_merger.h); its rows are emitted in the request's order.
  std::optional<Reply> embed_merged(
      const ModelGeneration& generation, RequestMerger& merger,
      const std::vector<EncodedInput>& encoded, const RequestControl& control,
      const EmitEmbedding& emit, const std::function<Reply(const ApiError&, size_t)>& fail) const;
  /// Runs the texts of `parts` as one batch on `session` and gives each part
  /// its rows or its error; a run that fails is run again part by part, so
  /// that its error lands on the request that caused it.
  void run_parts(const ModelGeneration& generation, Session& session,
                 const std::vector<RequestMerger::Part*>& parts) const;
  /// The 404 of a request naming a model this server does not serve.
  ApiError unknown_model(std::string_view name) const;
  /// The 404 of a v2 path naming another model, or a version other than "1".
  std::optional<ApiError> v2_check_model(std::string_view name, std::string_view version) const;

  ServiceOptions options_;
  mutable ServeMetrics metrics_;
  bool has_tokenizer_ = false;  // the text endpoints' tokenizer; a reload keeps it
  mutable std::mutex mutex_;    // guards current_ (the pointer, not the generation)
  std::shared_ptr<const ModelGeneration> current_;
};

/// The 504 of a request whose deadline passed; `progress` says how far it got.
ApiError deadline_error(const RequestControl& control, const std::string& progress);

}  // namespace normrt::serve
