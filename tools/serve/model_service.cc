#include "tools/serve/model_service.h"

#include <algorithm>
#include <utility>

#include "base/status.h"

namespace normrt::serve {

// Bytes of memory a request may hold per byte of its body, at the peak of
// its parse: the body itself (1), nlohmann's lexer buffer for the longest
// string as it doubles (up to 2, plus 1 while it is copied to grow), the
// DOM's copy of that string (1), and slack for the tokenizer's copy of one
// cut text (1). Measured: an 8 MiB one-string body peaks at ~5x
// (docs/serve.md, "Memory").
constexpr size_t kBytesPerBodyByte = 6;

Expected<std::unique_ptr<ModelService>> ModelService::create(
    std::shared_ptr<const Model> model, const ServiceOptions& options,
    std::optional<TextTokenizer> tokenizer) {
  std::unique_ptr<ModelService> service(new ModelService());
  service->options_ = options;
  service->has_tokenizer_ = tokenizer.has_value();
  NORMRT_ASSIGN_OR_RETURN(
      std::shared_ptr<ModelGeneration> generation,
      ModelGeneration::create(std::move(model), options.workers, options.max_embedding_inputs,
                              std::move(tokenizer), 1, options.run_batch, options.merge));
  service->current_ = std::move(generation);
  return service;
}

Status ModelService::replace_model(std::shared_ptr<const Model> model,
                                   std::optional<TextTokenizer> tokenizer) {
  if (tokenizer.has_value() != has_tokenizer_) {
    return Status::error(has_tokenizer_ ? "the new model needs the tokenizer (--vocab)"
                                        : "a tokenizer was given but /v1/embeddings is off");
  }
  const uint64_t number = current()->number() + 1;
  NORMRT_ASSIGN_OR_RETURN(
      std::shared_ptr<ModelGeneration> generation,
      ModelGeneration::create(std::move(model), options_.workers, options_.max_embedding_inputs,
                              std::move(tokenizer), number, options_.run_batch, options_.merge));
  if (generation->reranks() != current()->reranks()) {
    return Status::error(generation->reranks()
                             ? "the new model is a reranker; the one served embeds texts"
                             : "the new model embeds texts; the one served is a reranker");
  }
  std::shared_ptr<const ModelGeneration> old;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    old = std::move(current_);
    current_ = std::move(generation);
  }
  return Status::ok();  // `old` is freed here, or by the last request still on it
}

std::shared_ptr<const ModelGeneration> ModelService::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

size_t ModelService::request_bytes(size_t body_bytes) const {
  return kBytesPerBodyByte * body_bytes + current()->request_bytes_beyond_body(body_bytes);
}

bool ModelService::serves(std::string_view name) const {
  if (name == options_.model_name) return true;
  for (const std::string& alias : options_.model_aliases) {
    if (name == alias) return true;
  }
  return false;
}

ApiError ModelService::unknown_model(std::string_view name) const {
  std::string names = "'" + options_.model_name + "'";
  for (const std::string& alias : options_.model_aliases) names += ", '" + alias + "'";
  return {404, "model_not_found",
          "the model '" + std::string(name) + "' does not exist: this server serves " + names +
              " (GET /v1/models)",
          "model"};
}

ApiError deadline_error(const RequestControl& control, const std::string& progress) {
  return {504, "deadline_exceeded",
          "the request ran past its deadline of " + std::to_string(control.timeout.count()) +
              " ms (--request-timeout-ms)" + (progress.empty() ? "" : ": " + progress)};
}

ApiResult<SessionPool::Lease> ModelService::lease(const ModelGeneration& generation,
                                                  const RequestControl& control) const {
  using Clock = RequestControl::Clock;
  const auto now = Clock::now();
  if (now >= control.deadline) return deadline_error(control, "before it got a worker");
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(control.deadline - now);
  const std::chrono::milliseconds wait = std::min(options_.queue_timeout, left);
  SessionPool& pool = generation.pool();
  SessionPool::Lease lease = pool.acquire(wait, options_.max_waiting);
  if (lease) return lease;
  const std::string workers =
      std::to_string(pool.size()) + " worker" + (pool.size() == 1 ? "" : "s");
  if (lease.refusal() == SessionPool::Refusal::kQueueFull) {
    return ApiError{503, "overloaded",
                    "overloaded: " + std::to_string(options_.max_waiting) +
                        " requests already wait for the " + workers +
                        " (--max-queue); retry later"};
  }
  if (wait < options_.queue_timeout) {
    return deadline_error(control, "no worker became free before it");
  }
  return ApiError{503, "overloaded",
                  "overloaded: none of the " + workers + " became free within " +
                      std::to_string(options_.queue_timeout.count()) +
                      " ms (--timeout-ms); retry later"};
}

}  // namespace normrt::serve
