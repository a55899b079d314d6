#pragma once
// The serving logic, free of HTTP: the current model generation (a shared
// Model, its pool of Sessions, its tokenizer), and a handler per endpoint
// taking the request body and returning a Reply. The HTTP layer
// (http_server.h) routes to these; tests call them directly.
//
//   POST /v1/run         run()         {"inputs": {...}, "outputs": [names]?}
//   POST /v1/embeddings  embeddings()  {"input": "text" | ["text", ...]}
//   GET  /v1/model       model_info()
//   GET  /v1/health      health()
//
// /v1/run is stateless per request: a model with state (an RNN, a KV cache)
// is reset() before every run, so each request starts from zero state. Every
// handler is safe to call from many threads at once, and at the same time as
// replace_model(): a request finishes on the generation it started on.
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "normrt/normrt.hpp"
#include "tools/serve/model_generation.h"
#include "tools/serve/reply.h"
#include "tools/serve/request_control.h"
#include "tools/serve/session_pool.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt::serve {

struct ServiceOptions {
  size_t workers = 1;  ///< sessions: requests that run at once
  /// Requests allowed to wait for a worker; one more is refused with 503.
  size_t max_waiting = 64;
  /// How long a request may wait for a worker before a 503.
  std::chrono::milliseconds queue_timeout{10000};
  /// Embedding inputs per /v1/embeddings request.
  size_t max_embedding_inputs = 256;
  /// The name responses give the model ("model" in /v1/model, /v1/embeddings).
  std::string model_name = "normrt";
};

/// The WordPiece tokenizer of `vocab_path` for `model`, lowercased and
/// accent-stripped unless `keep_case`. Its max_length is one id more than
/// the model's max_sequence_length: /v1/embeddings cuts a text to the
/// model's length itself and so knows when it did ("truncated").
Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case);

class ModelService {
 public:
  /// `tokenizer` (from load_tokenizer()) enables /v1/embeddings; see
  /// ModelGeneration::create() for what the model must then have. An error
  /// says which condition fails.
  static Expected<std::unique_ptr<ModelService>> create(
      std::shared_ptr<const Model> model, const ServiceOptions& options,
      std::optional<text::BertTokenizer> tokenizer = std::nullopt);

  Reply run(std::string_view body, const RequestControl& control = {});
  Reply embeddings(std::string_view body, const RequestControl& control = {});
  Reply model_info() const;
  Reply health() const;

  /// Makes `model` (with `tokenizer`, needed iff embeddings are enabled) the
  /// model of every request that starts from now on, once its sessions are
  /// made and it passed the checks of create(); requests in flight finish on
  /// the old one. On an error nothing changes. Thread-safe.
  Status replace_model(std::shared_ptr<const Model> model,
                       std::optional<text::BertTokenizer> tokenizer = std::nullopt);

  /// The generation new requests start on.
  std::shared_ptr<const ModelGeneration> current() const;
  /// The worst-case memory of one request whose body has `body_bytes`
  /// (what the HTTP layer reserves from --max-inflight-bytes).
  size_t request_bytes(size_t body_bytes) const;

  bool embeddings_enabled() const { return embeddings_enabled_; }
  /// The current generation's model and pool (for tests and start-up messages).
  const Model& model() const { return current()->model(); }
  SessionPool& pool() { return current()->pool(); }

 private:
  ModelService() = default;
  /// A session of `generation`, or the 503 (or 504 past the deadline) that refuses the request.
  ApiResult<SessionPool::Lease> lease(const ModelGeneration& generation,
                                      const RequestControl& control) const;

  ServiceOptions options_;
  bool embeddings_enabled_ = false;
  mutable std::mutex mutex_;  // guards current_ (the pointer, not the generation)
  std::shared_ptr<const ModelGeneration> current_;
};

/// The 504 of a request whose deadline passed; `progress` says how far it got.
ApiError deadline_error(const RequestControl& control, const std::string& progress);

}  // namespace normrt::serve
