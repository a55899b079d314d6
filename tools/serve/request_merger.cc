#include "tools/serve/request_merger.h"

#include <algorithm>

namespace normrt::serve {
namespace {

// How often a member waiting in a batch looks whether its client is still
// there (a peek at its socket) and whether its deadline passed.
constexpr std::chrono::milliseconds kPoll{10};

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
};

RequestMerger::Outcome RequestMerger::submit(Part& part, const RequestControl& control,
                                             const Runner& runner) {
  const size_t texts = part.inputs->size();
  std::unique_lock<std::mutex> lock(mutex_);
  if (open_ && open_->texts + texts > max_texts_) close(open_);
  if (!open_) {
    open_ = std::make_shared<Batch>();
    open_->due = Clock::now() + wait_;
  }
  const std::shared_ptr<Batch> batch = open_;
  batch->members.push_back({&part, &control});
  batch->texts += texts;
  if (batch->texts >= max_texts_) close(batch);
  for (;;) {
    if (batch->finished) return Outcome::kRan;
    if (!batch->claimed && (batch->closed || Clock::now() >= batch->due)) {
      run(lock, batch, control, runner);
      return Outcome::kRan;
    }
    if (!batch->running) {
      // The client check reads the socket: not under the lock.
      lock.unlock();
      const bool gone = control.abandoned();
      const bool late = !gone && control.expired();
      lock.lock();
      if ((gone || late) && !batch->running && !batch->finished) {
        leave(batch, part);
        return gone ? Outcome::kClientGone : Outcome::kExpired;
      }
      // The batch may have moved on while the lock was free: look again.
      if (batch->finished || (!batch->claimed && (batch->closed || Clock::now() >= batch->due)))
        continue;
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

void RequestMerger::run(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Batch>& batch,
                        const RequestControl& control, const Runner& runner) {
  batch->claimed = true;
  // The session is leased for the member that may wait longest; members
  // whose own deadline comes first leave on their own while it is leased.
  RequestControl batch_control;
  batch_control.timeout = control.timeout;
  batch_control.deadline = Clock::time_point::min();
  for (const Batch::Member& member : batch->members)
    batch_control.deadline = std::max(batch_control.deadline, member.control->deadline);
  lock.unlock();
  {
    ApiResult<SessionPool::Lease> lease = runner.lease(batch_control);
    lock.lock();
    if (!batch->closed) close(batch);
    if (!lease) {
      for (const Batch::Member& member : batch->members) member.part->error = lease.error();
    } else if (!batch->members.empty()) {
      batch->running = true;
      std::vector<Part*> parts;
      for (const Batch::Member& member : batch->members) parts.push_back(member.part);
      lock.unlock();
      try {
        runner.run(lease->session(), parts);
      } catch (const std::exception& e) {  // e.g. bad_alloc: every part must still be answered
        for (Part* part : parts) part->error = ApiError{500, "internal", e.what()};
      }
      lock.lock();
    }
    lock.unlock();
  }  // the session goes back to the pool before the members are woken
  lock.lock();
  batch->finished = true;
  changed_.notify_all();
}

}  // namespace normrt::serve
