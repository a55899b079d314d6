#include "tools/serve/request_merger.h"

#include <algorithm>

namespace normrt::serve {
namespace {

// How often a member waiting in a batch looks whether its client is still
// there (a peek at its socket) and whether its deadline passed.
constexpr std::chrono::milliseconds kPoll{10};

// Releases a held lock for its scope: for work that must not run under it.
class Unlocked {
 public:
  explicit Unlocked(std::unique_lock<std::mutex>& lock) : lock_(lock) { lock_.unlock(); }
  ~Unlocked() { lock_.lock(); }
  Unlocked(const Unlocked&) = delete;
  Unlocked& operator=(const Unlocked&) = delete;

 private:
  std::unique_lock<std::mutex>& lock_;
};

// The runner's lease, or its exception (bad_alloc) as an error for every
// member: a claimed batch must always finish, or its members and every
// request that joins it would wait out their deadlines.
ApiResult<SessionPool::Lease> lease_or_error(const RequestMerger::Runner& runner,
                                             const RequestControl& control) {
  try {
    return runner.lease(control);
  } catch (const std::exception& e) {
    return ApiError{500, "internal", e.what()};
  }
}

}  // namespace

struct RequestMerger::Batch {
  struct Member {
    Part* part;
    const RequestControl* control;
  };
  std::vector<Member> members;
  size_t texts = 0;
  Clock::time_point due;  // when it stops waiting for more parts
  bool closed = false;    // takes no more parts: full, or its session is in hand
  bool claimed = false;   // a member's thread leases and runs it
  bool running = false;   // the parts' inputs are being read: no one may leave
  bool finished = false;  // every remaining part has its rows or its error

  /// Due to run and no member's thread has claimed it yet: it is full (or
  /// closed), or its wait is over.
  bool ready(Clock::time_point now) const { return !claimed && (closed || now >= due); }
};

RequestMerger::Outcome RequestMerger::submit(Part& part, const RequestControl& control,
                                             const Runner& runner) {
  std::shared_ptr<Batch> batch;
  RequestControl batch_control;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    batch = join(part, control);
    if (std::optional<Outcome> outcome = wait_for_turn(lock, batch, part, control)) return *outcome;
    batch_control = claim(*batch, control);
  }
  run(batch, batch_control, runner);
  return Outcome::kRan;
}

std::shared_ptr<RequestMerger::Batch> RequestMerger::join(Part& part,
                                                          const RequestControl& control) {
  const size_t texts = part.inputs->size();
  if (open_ && open_->texts + texts > max_texts_) close(open_);
  if (!open_) {
    open_ = std::make_shared<Batch>();
    open_->due = Clock::now() + wait_;
  }
  std::shared_ptr<Batch> batch = open_;
  batch->members.push_back({&part, &control});
  batch->texts += texts;
  if (batch->texts >= max_texts_) close(batch);
  return batch;
}

std::optional<RequestMerger::Outcome> RequestMerger::wait_for_turn(
    std::unique_lock<std::mutex>& lock, const std::shared_ptr<Batch>& batch, Part& part,
    const RequestControl& control) {
  for (;;) {
    if (batch->finished) return Outcome::kRan;
    if (batch->ready(Clock::now())) return std::nullopt;
    if (!batch->running) {
      bool gone = false, late = false;
      {
        Unlocked unlocked(lock);  // the client check reads the socket
        gone = control.abandoned();
        late = !gone && control.expired();
      }
      if ((gone || late) && !batch->running && !batch->finished) {
        leave(batch, part);
        return gone ? Outcome::kClientGone : Outcome::kExpired;
      }
      // The batch may have moved on while the lock was free: look again.
      if (batch->finished || batch->ready(Clock::now())) continue;
    }
    Clock::time_point wake = Clock::now() + kPoll;
    if (!batch->claimed) wake = std::min(wake, batch->due);
    changed_.wait_until(lock, wake);
  }
}

size_t RequestMerger::open_texts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_ ? open_->texts : 0;
}

void RequestMerger::close(const std::shared_ptr<Batch>& batch) {
  batch->closed = true;
  if (open_ == batch) open_.reset();
  changed_.notify_all();
}

void RequestMerger::leave(const std::shared_ptr<Batch>& batch, Part& part) {
  auto& members = batch->members;
  auto it = std::find_if(members.begin(), members.end(),
                         [&](const Batch::Member& member) { return member.part == &part; });
  if (it == members.end()) return;
  batch->texts -= part.inputs->size();
  members.erase(it);
  // An open batch that lost its last member is dropped; the next request
  // opens a new one with its own wait.
  if (members.empty() && !batch->claimed && open_ == batch) open_.reset();
}

RequestControl RequestMerger::claim(Batch& batch, const RequestControl& control) {
  batch.claimed = true;
  // The session is leased for the member that may wait longest; members
  // whose own deadline comes first leave on their own while it is leased.
  RequestControl batch_control;
  batch_control.timeout = control.timeout;
  batch_control.deadline = Clock::time_point::min();
  for (const Batch::Member& member : batch.members)
    batch_control.deadline = std::max(batch_control.deadline, member.control->deadline);
  return batch_control;
}

void RequestMerger::run(const std::shared_ptr<Batch>& batch, const RequestControl& batch_control,
                        const Runner& runner) {
  {
    ApiResult<SessionPool::Lease> lease = lease_or_error(runner, batch_control);
    const std::vector<Part*> parts = start(batch, lease);
    if (!parts.empty()) {
      try {
        runner.run(lease->session(), parts);
      } catch (const std::exception& e) {  // e.g. bad_alloc: every part must still be answered
        for (Part* part : parts) part->error = ApiError{500, "internal", e.what()};
      }
    }
  }  // the session goes back to the pool before the members are woken
  std::lock_guard<std::mutex> lock(mutex_);
  batch->finished = true;
  changed_.notify_all();
}

std::vector<RequestMerger::Part*> RequestMerger::start(const std::shared_ptr<Batch>& batch,
                                                       const ApiResult<SessionPool::Lease>& lease) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!batch->closed) close(batch);
  std::vector<Part*> parts;
  if (!lease) {
    for (const Batch::Member& member : batch->members) member.part->error = lease.error();
    return parts;
  }
  for (const Batch::Member& member : batch->members) parts.push_back(member.part);
  batch->running = !parts.empty();
  return parts;
}

}  // namespace normrt::serve
