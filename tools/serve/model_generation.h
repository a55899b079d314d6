#pragma once
// One loaded model as the server serves it: the Model, its pool of Sessions,
// the tokenizer checked against it, and the limits derived from its shapes.
// A ModelService holds the current generation and replaces it whole on a
// reload (SIGHUP): a request takes a reference to the generation current when
// it starts and finishes on it, so a reload never changes a model under a
// request, and the old generation is freed when its last request ends.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "normrt/normrt.hpp"
#include "tools/serve/request_merger.h"
#include "tools/serve/session_pool.h"
#include "tools/serve/text_encoding.h"

namespace normrt::serve {

/// A one-label sequence classifier (a cross-encoder reranker): inputs
/// input_ids i32 [S] and optionally token_type_ids i32 [S], output logits
/// f32 [1, 1].
bool is_reranker(const Model& model);

class ModelGeneration {
 public:
  /// `tokenizer` (made by load_tokenizer() for this model) enables
  /// /v1/embeddings: the model must then have one i32 input of shape [S] and
  /// an f32 output "embedding" of shape [1, H], and accept every id of the
  /// vocabulary (checked by a run on the largest id). A reranker (is_reranker())
  /// with a tokenizer serves /v1/rerank instead.
  /// `run_batch`: sequences per run of its sessions (1 if the model runs
  /// one sequence at a time). `merge`: requests merged into one run
  /// (request_merger.h), when its wait is set and the sessions take batches.
  static Expected<std::shared_ptr<ModelGeneration>> create(std::shared_ptr<const Model> model,
                                                           size_t workers,
                                                           size_t max_embedding_inputs,
                                                           std::optional<TextTokenizer> tokenizer,
                                                           uint64_t number, size_t run_batch = 1,
                                                           const MergeOptions& merge = {});

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& model_ptr() const { return model_; }
  SessionPool& pool() const { return *pool_; }
  /// Sequences one run of its sessions takes (≥ 1).
  size_t run_batch() const { return pool_->max_batch(); }
  /// The merger of small embedding requests, or null when merging is off.
  RequestMerger* merger() const { return merger_.get(); }
  const TextTokenizer* tokenizer() const { return tokenizer_ ? &*tokenizer_ : nullptr; }
  const std::string& id_input() const { return id_input_; }
  /// With a tokenizer: the model scores pairs (/v1/rerank) rather than embeds
  /// texts; rerank_types(): it takes token_type_ids.
  bool reranks() const { return reranks_; }
  /// With a tokenizer and an "embedding" output: /v1/embeddings and v2 texts.
  bool embeds_texts() const { return tokenizer_.has_value() && !reranks_; }
  bool rerank_types() const { return rerank_types_; }
  /// 1 for the model loaded at start-up, +1 per successful reload.
  uint64_t number() const { return number_; }
  /// When this generation was made (OpenAI's "created" of /v1/models).
  std::chrono::system_clock::time_point created() const { return created_; }

  /// With a tokenizer: H of the "embedding" output [1, H]; the vocabulary's
  /// size (ids must be below it); whether "embedding" is the output of an
  /// L2Normalize (what Matryoshka truncation re-normalizes).
  size_t embedding_width() const { return embedding_width_; }
  int64_t vocabulary_size() const { return vocabulary_size_; }
  bool embedding_normalized() const { return embedding_normalized_; }
  /// The most JSON values an embeddings request (or a v2 request of texts)
  /// can need: max_embedding_inputs token-id arrays at max_sequence_length.
  size_t max_embedding_values() const { return max_embedding_values_; }

  /// The most JSON values a /v1/run body can need for this model: every
  /// input at S = max_sequence_length, plus room for the structure.
  size_t max_run_values() const { return max_run_values_; }
  /// Numbers all inputs hold together at S = max_sequence_length.
  size_t max_input_elements() const { return max_input_elements_; }
  /// Memory a request with a body of `body_bytes` may take beyond the
  /// body's own bytes: its DOM (at most max_run_values() or
  /// max_embedding_values(), and at most one value per two body bytes), its
  /// input tensors, the ids of its texts, its reply at the longest S (or of
  /// as many embeddings as the body can ask for).
  size_t request_bytes_beyond_body(size_t body_bytes) const;

 private:
  ModelGeneration() = default;
  Status check_embedding_model();
  Status check_rerank_model();
  /// Runs the tokenizer's ids of an empty text (or pair) with the largest id
  /// of its vocabulary inserted: an error if the model's table lacks it.
  Status probe_vocabulary(std::vector<int32_t> ids);

  std::shared_ptr<const Model> model_;
  std::unique_ptr<SessionPool> pool_;
  std::unique_ptr<RequestMerger> merger_;
  std::optional<TextTokenizer> tokenizer_;
  std::string id_input_;
  uint64_t number_ = 1;
  size_t max_run_values_ = 0;
  size_t max_input_elements_ = 0;
  size_t max_output_elements_ = 0;
  size_t max_embedding_inputs_ = 0;
  size_t max_embedding_values_ = 0;
  size_t embedding_width_ = 0;
  int64_t vocabulary_size_ = 0;
  bool embedding_normalized_ = false;
  bool reranks_ = false;
  bool rerank_types_ = false;
  std::chrono::system_clock::time_point created_;
};

}  // namespace normrt::serve
