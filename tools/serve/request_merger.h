#pragma once
// Dynamic batching across requests (--batch-wait-ms, --max-batch-texts): the
// texts of concurrent small embedding requests run as one batch on one
// session, and each request gets back exactly its own rows.
//
// A request joins the open batch if its texts fit (else it closes that batch
// and opens the next). A batch stops waiting for more when it is full or
// `wait` after it opened; then one of its members' threads (the first to
// see it due) leases a session for all of them and runs it. Until the
// session is in hand the batch still takes newcomers (while workers are
// busy it keeps filling up), and a member may still leave: a client gone or
// a deadline passed removes its texts and answers it at once (499, 504),
// without touching the others. Once the run starts the members' inputs are
// being read, so they wait for it (one run) — a member whose thread runs the
// batch runs it for the others even if its own client left.
//
// The merger knows nothing of the model: the runner's hooks lease the
// session and run the parts (ModelService, embedding_runner.cc). Thread-safe.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "tools/serve/reply.h"
#include "tools/serve/request_control.h"
#include "tools/serve/session_pool.h"
#include "tools/serve/text_encoding.h"

namespace normrt::serve {

/// The command line's choice; off (no wait given) by default.
struct MergeOptions {
  /// How long a batch waits for more requests (--batch-wait-ms); none: off.
  std::optional<std::chrono::milliseconds> wait;
  /// Texts per merged run (--max-batch-texts); 0: the sessions' --run-batch.
  size_t max_texts = 0;
};

class RequestMerger {
 public:
  RequestMerger(std::chrono::milliseconds wait, size_t max_texts)
      : wait_(wait), max_texts_(max_texts) {}

  /// One request's share of a batch. `inputs` stays valid while submit()
  /// runs; the run fills `rows` (inputs × width, in the request's order) or
  /// `error` (which names the request's own input index).
  struct Part {
    const std::vector<EncodedInput>* inputs = nullptr;
    std::vector<float> rows;
    std::optional<ApiError> error;
  };

  /// What the member that runs a batch calls: `lease` a session (the control
  /// carries the latest deadline of the batch's members), then `run` the
  /// parts on it, filling each part's rows or error.
  struct Runner {
    std::function<ApiResult<SessionPool::Lease>(const RequestControl&)> lease;
    std::function<void(Session&, const std::vector<Part*>&)> run;
  };

  enum class Outcome {
    kRan,         ///< the part's rows or error are filled
    kClientGone,  ///< the client left before the batch ran; the part was dropped
    kExpired,     ///< the deadline passed before the batch ran; the part was dropped
  };

  /// Whether a request of `texts` inputs is merged (1 ≤ texts ≤ max_texts).
  bool takes(size_t texts) const { return texts >= 1 && texts <= max_texts_; }

  /// Puts `part` in a batch and returns once it ran or the request left it.
  Outcome submit(Part& part, const RequestControl& control, const Runner& runner);

  /// Texts in the batch that new requests would join now (0: none open).
  size_t open_texts() const;

  std::chrono::milliseconds wait() const { return wait_; }
  size_t max_texts() const { return max_texts_; }

 private:
  using Clock = RequestControl::Clock;
  struct Batch;

  // Called with mutex_ held:
  /// Adds `part` to the open batch (opening one, closing a full one); returns its batch.
  std::shared_ptr<Batch> join(Part& part, const RequestControl& control);
  /// Waits until `batch` ran (kRan), the request left it (its part dropped),
  /// or it is ready to run (nullopt: this thread claims and runs it). The
  /// lock is released while waiting and while the client is checked.
  std::optional<Outcome> wait_for_turn(std::unique_lock<std::mutex>& lock,
                                       const std::shared_ptr<Batch>& batch, Part& part,
                                       const RequestControl& control);
  /// No more parts join `batch` (full, or its session is in hand).
  void close(const std::shared_ptr<Batch>& batch);
  /// Removes `part` from `batch`, which has not started running.
  void leave(const std::shared_ptr<Batch>& batch, Part& part);
  /// Marks `batch` as this thread's to run; the control its session is leased with.
  RequestControl claim(Batch& batch, const RequestControl& control);

  // Called without mutex_ (they take it):
  /// Leases a session for the claimed `batch`, runs it, and wakes its members.
  void run(const std::shared_ptr<Batch>& batch, const RequestControl& batch_control,
           const Runner& runner);
  /// Closes `batch` once its lease is settled; the parts to run (none when the
  /// lease failed: each part then has the lease's error).
  std::vector<Part*> start(const std::shared_ptr<Batch>& batch,
                           const ApiResult<SessionPool::Lease>& lease);

  const std::chrono::milliseconds wait_;
  const size_t max_texts_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a batch closed, was claimed or finished
  std::shared_ptr<Batch> open_;      // the batch new parts join; guarded by mutex_
};

}  // namespace normrt::serve
