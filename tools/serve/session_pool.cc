#include "tools/serve/session_pool.h"

#include <cassert>

#include "base/status.h"

namespace normrt::serve {

Expected<std::unique_ptr<SessionPool>> SessionPool::create(std::shared_ptr<const Model> model,
                                                           size_t count, size_t max_batch) {
  if (count == 0) return Status::error("session pool: at least one session is needed");
  std::unique_ptr<SessionPool> pool(new SessionPool());
  pool->max_batch_ = max_batch;
  for (size_t i = 0; i < count; ++i) {
    SessionOptions options;
    options.threads = 1;  // parallelism comes from the sessions, not inside one run
    options.max_batch = max_batch;
    NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(model, options));
    pool->free_.push_back(session.get());
    pool->sessions_.push_back(std::move(session));
  }
  return pool;
}

SessionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), session_(other.session_), refusal_(other.refusal_) {
  other.session_ = nullptr;
}

SessionPool::Lease::~Lease() {
  if (session_ != nullptr) pool_->release(session_);
}

SessionPool::Lease SessionPool::acquire(std::chrono::milliseconds wait, size_t max_waiting) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (free_.empty() || !line_.empty()) {
    if (line_.size() >= max_waiting) return Lease(this, nullptr, Refusal::kQueueFull);
    const uint64_t ticket = next_ticket_++;
    line_.push_back(ticket);
    const bool got =
        freed_.wait_for(lock, wait, [&] { return !free_.empty() && line_.front() == ticket; });
    // Leave the line (from the front when served, from anywhere on a timeout)
    // and let the next in line look again.
    for (auto it = line_.begin(); it != line_.end(); ++it) {
      if (*it == ticket) {
        line_.erase(it);
        break;
      }
    }
    freed_.notify_all();
    if (!got) return Lease(this, nullptr, Refusal::kTimedOut);
  }
  Session* session = free_.back();
  free_.pop_back();
  return Lease(this, session, Refusal::kNone);
}

void SessionPool::release(Session* session) {
  // A batch's attention mask stays with a session until cleared: the next
  // request, of another shape, starts without it. A null mask always clears.
  [[maybe_unused]] const Status cleared =
      session->set_attention_mask(ElementType::kI32, nullptr, TensorShape{});
  assert(cleared.is_ok());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(session);
  }
  freed_.notify_all();  // the first in line takes it; the others wait on
}

size_t SessionPool::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return line_.size();
}

size_t SessionPool::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return sessions_.size() - free_.size();
}

}  // namespace normrt::serve
