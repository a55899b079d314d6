#pragma once
// One loaded model as the server serves it: the Model, its pool of Sessions,
// the tokenizer checked against it, and the limits derived from its shapes.
// A ModelService holds the current generation and replaces it whole on a
// reload (SIGHUP): a request takes a reference to the generation current when
// it starts and finishes on it, so a reload never changes a model under a
// request, and the old generation is freed when its last request ends.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "normrt/normrt.hpp"
#include "tools/serve/session_pool.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt::serve {

class ModelGeneration {
 public:
  /// `tokenizer` (made by load_tokenizer() for this model) enables
  /// /v1/embeddings: the model must then have one i32 input of shape [S] and
  /// an f32 output "embedding" of shape [1, H], and accept every id of the
  /// vocabulary (checked by a run on the largest id).
  static Expected<std::shared_ptr<ModelGeneration>> create(
      std::shared_ptr<const Model> model, size_t workers, size_t max_embedding_inputs,
      std::optional<text::BertTokenizer> tokenizer, uint64_t number);

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& model_ptr() const { return model_; }
  SessionPool& pool() const { return *pool_; }
  const text::BertTokenizer* tokenizer() const { return tokenizer_ ? &*tokenizer_ : nullptr; }
  const std::string& id_input() const { return id_input_; }
  /// 1 for the model loaded at start-up, +1 per successful reload.
  uint64_t number() const { return number_; }

  /// The most JSON values a /v1/run body can need for this model: every
  /// input at S = max_sequence_length, plus room for the structure.
  size_t max_run_values() const { return max_run_values_; }
  /// Numbers all inputs hold together at S = max_sequence_length.
  size_t max_input_elements() const { return max_input_elements_; }
  /// Memory a request may take beyond its body's bytes, whatever the body:
  /// its DOM within max_run_values(), its input tensors, its reply at the
  /// longest S (or of max_embedding_inputs embeddings).
  size_t fixed_request_bytes() const { return fixed_request_bytes_; }

 private:
  ModelGeneration() = default;
  Status check_embedding_model();

  std::shared_ptr<const Model> model_;
  std::unique_ptr<SessionPool> pool_;
  std::optional<text::BertTokenizer> tokenizer_;
  std::string id_input_;
  uint64_t number_ = 1;
  size_t max_run_values_ = 0;
  size_t max_input_elements_ = 0;
  size_t fixed_request_bytes_ = 0;
};

}  // namespace normrt::serve
