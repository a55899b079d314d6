#include "tools/serve/model_service.h"

#include <utility>

#include "base/status.h"

namespace normrt::serve {

Expected<std::unique_ptr<ModelService>> ModelService::create(
    std::shared_ptr<const Model> model, const ServiceOptions& options,
    std::optional<text::BertTokenizer> tokenizer) {
  if (model == nullptr) return Status::error("serve: no model");
  std::unique_ptr<ModelService> service(new ModelService());
  service->model_ = model;
  service->options_ = options;
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<SessionPool> pool,
                          SessionPool::create(model, options.workers));
  service->pool_ = std::move(pool);
  service->tokenizer_ = std::move(tokenizer);
  if (service->tokenizer_) {
    NORMRT_RETURN_IF_ERROR(service->check_embedding_model());
  }
  return service;
}

ApiResult<SessionPool::Lease> ModelService::lease() {
  SessionPool::Lease lease = pool_->acquire(options_.queue_timeout, options_.max_waiting);
  if (lease) return lease;
  const std::string workers =
      std::to_string(pool_->size()) + " worker" + (pool_->size() == 1 ? "" : "s");
  if (lease.refusal() == SessionPool::Refusal::kQueueFull) {
    return ApiError{503, "overloaded",
                    "overloaded: " + std::to_string(options_.max_waiting) +
                        " requests already wait for the " + workers +
                        " (--max-queue); retry later"};
  }
  return ApiError{503, "overloaded",
                  "overloaded: none of the " + workers + " became free within " +
                      std::to_string(options_.queue_timeout.count()) +
                      " ms (--timeout-ms); retry later"};
}

}  // namespace normrt::serve
