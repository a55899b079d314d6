#pragma once
// The serving logic, free of HTTP: one shared Model, a pool of Sessions, and
// a handler per endpoint taking the request body and returning a Reply. The
// HTTP layer (http_server.h) routes to these; tests call them directly.
//
//   POST /v1/run         run()         {"inputs": {...}, "outputs": [names]?}
//   POST /v1/embeddings  embeddings()  {"input": "text" | ["text", ...]}
//   GET  /v1/model       model_info()
//   GET  /v1/health      health()
//
// /v1/run is stateless per request: a model with state (an RNN, a KV cache)
// is reset() before every run, so each request starts from zero state. Every
// handler is safe to call from many threads at once.
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "normrt/normrt.hpp"
#include "tools/serve/reply.h"
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

/// The WordPiece tokenizer of `vocab_path` for `model`: sequences of up to
/// model.max_sequence_length() ids ([CLS] and [SEP] included; longer texts
/// are truncated), lowercased and accent-stripped unless `keep_case`.
Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case);

class ModelService {
 public:
  /// `tokenizer` enables /v1/embeddings; the model must then have one i32
  /// input of shape [S] and an f32 output "embedding" of shape [1, H]
  /// (normrt-convert --pooling mean), and must accept every id of the
  /// vocabulary (checked by a run on the largest id). An error says which
  /// condition fails.
  static Expected<std::unique_ptr<ModelService>> create(
      std::shared_ptr<const Model> model, const ServiceOptions& options,
      std::optional<text::BertTokenizer> tokenizer = std::nullopt);

  Reply run(std::string_view body);
  Reply embeddings(std::string_view body);
  Reply model_info() const;
  Reply health() const;

  bool embeddings_enabled() const { return tokenizer_.has_value(); }
  const Model& model() const { return *model_; }
  SessionPool& pool() { return *pool_; }

 private:
  ModelService() = default;
  /// A session, or the 503 that refuses the request.
  ApiResult<SessionPool::Lease> lease();
  Status check_embedding_model();

  std::shared_ptr<const Model> model_;
  ServiceOptions options_;
  std::unique_ptr<SessionPool> pool_;
  std::optional<text::BertTokenizer> tokenizer_;
  std::string id_input_;  ///< the i32 input the embeddings feed
};

}  // namespace normrt::serve
