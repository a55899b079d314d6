#pragma once
// A fixed set of Sessions over one shared Model: the inference workers.
// A request leases one session for the length of its run and gives it back;
// at most size() requests run at once, the others wait in line.
//
// Sessions are created once, at start-up (never per request). A session is
// used by one thread at a time: the lease is the only way to reach it.
// Waiting is first come, first served (a newcomer never overtakes the line).
// Overload: a request is refused at once when `max_waiting` requests are
// already in line, or after waiting `wait` without a free session.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt::serve {

class SessionPool {
 public:
  /// `count` ≥ 1 sessions of `model`, each single-threaded (intra-op 1)
  /// and taking up to `max_batch` sequences per run.
  static Expected<std::unique_ptr<SessionPool>> create(std::shared_ptr<const Model> model,
                                                       size_t count, size_t max_batch = 1);

  enum class Refusal { kNone, kQueueFull, kTimedOut };

  /// A session on loan; returned to the pool when the lease is destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease();
    explicit operator bool() const { return session_ != nullptr; }
    Refusal refusal() const { return refusal_; }
    Session& session() const { return *session_; }

   private:
    friend class SessionPool;
    Lease(SessionPool* pool, Session* session, Refusal refusal)
        : pool_(pool), session_(session), refusal_(refusal) {}
    SessionPool* pool_;
    Session* session_;
    Refusal refusal_;
  };

  /// A free session, waiting up to `wait` for one; refused (an empty lease)
  /// if `max_waiting` requests already wait or the wait runs out.
  Lease acquire(std::chrono::milliseconds wait, size_t max_waiting);

  size_t size() const { return sessions_.size(); }
  size_t max_batch() const { return max_batch_; }
  /// Requests waiting for a session now (for /v1/health).
  size_t waiting() const;
  /// Sessions running a request now.
  size_t busy() const;

 private:
  SessionPool() = default;
  void release(Session* session);

  std::vector<std::unique_ptr<Session>> sessions_;
  size_t max_batch_ = 1;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<Session*> free_;  // guarded by mutex_
  std::deque<uint64_t> line_;   // tickets of the waiting requests, oldest first; guarded
  uint64_t next_ticket_ = 0;    // guarded by mutex_
};

}  // namespace normrt::serve
