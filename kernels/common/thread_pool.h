#pragma once
// Intra-op parallelism for batch-1 latency: a fixed team of threads that runs
// one task at a time, every participant at once, with a barrier inside it.
//
// The use it is built for is the fused Linear→Norm kernel: each participant
// computes its slice of a GEMV's N output columns (split_range()) and gathers
// partial statistics, all meet at one barrier, then each normalizes its own
// slice. Calls last ~1-50 µs, so the pool is tuned for wake-up latency:
//
//   - Workers are created once, in the constructor. run() creates no thread
//     and allocates nothing; the caller runs as participant 0.
//   - Waiting threads (workers between runs, the caller until the workers are
//     done, participants at the barrier) pause briefly, then yield the CPU in
//     a loop for `ThreadPoolOptions::spin`, then sleep on a condition
//     variable, so an idle pool costs no CPU. Yielding rather than pausing
//     lets a participant queued on the same CPU run (a busy or oversubscribed
//     machine). A waker takes the mutex only if someone sleeps.
//
// Contracts:
//   - Not reentrant: one run() at a time per pool, never from inside a task
//     (asserted in debug builds). Use one pool per concurrent caller.
//   - Tasks must not throw: an exception escaping a task calls std::terminate.
//   - Inside one run(), every participant calls arrive_and_wait() the same
//     number of times (else the run deadlocks).

#include <chrono>
#include <cstddef>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace normrt {

/// A non-owning reference to a callable: two pointers, no allocation. It must
/// not outlive the callable (passing a lambda straight to a function taking a
/// FunctionRef is fine: the temporary lives until the call returns).
template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f) noexcept  // NOLINT: implicit by design, like std::function
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_(&call<std::remove_reference_t<F>>) {
    static_assert(!std::is_function_v<std::remove_reference_t<F>>,
                  "pass a function pointer (&f) or a lambda, not a function");
  }

  R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }

 private:
  template <class F>
  static R call(void* callable, Args... args) {
    return (*static_cast<F*>(callable))(std::forward<Args>(args)...);
  }

  void* callable_;
  R (*call_)(void*, Args...);
};

/// A half-open index range [begin, end).
struct Range {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end - begin; }
  bool empty() const { return begin == end; }
};

/// Slice `index` of [0, n) cut into `parts` contiguous slices for static
/// partitioning. Every boundary is a multiple of `align` except n itself: the
/// slice holding the last element takes the remainder (n % align). The
/// ceil(n / align) blocks are dealt as evenly as possible, one more to the
/// first slices, so slices differ by at most one block (plus the short tail);
/// if there are fewer blocks than parts the last slices are empty (begin ==
/// end == n). Preconditions: parts ≥ 1, index < parts, align ≥ 1.
Range split_range(size_t n, size_t parts, size_t index, size_t align = 1);

namespace detail {
struct PoolState;  // kernels/common/thread_pool.cc
}

/// A reusable barrier for the participants of one run(): arrive_and_wait()
/// returns once all of them have arrived, and every write made before it by
/// any participant is visible after it to all. Sense-reversing, so it can be
/// used any number of times per run.
class PoolBarrier {
 public:
  PoolBarrier(const PoolBarrier&) = delete;
  PoolBarrier& operator=(const PoolBarrier&) = delete;

  void arrive_and_wait();
  /// The number of participants.
  size_t size() const { return size_; }

 private:
  friend class ThreadPool;
  PoolBarrier(detail::PoolState* state, size_t size) : state_(state), size_(size) {}

  detail::PoolState* state_;
  size_t size_;
};

/// Tuning knobs; the defaults suit batch-1 inference.
struct ThreadPoolOptions {
  /// How long a waiting thread spins (yielding) before it sleeps. Measured on
  /// a busy 2-core KVM Xeon: run() with an empty task takes ~0.8 µs round trip
  /// when the worker spins on the other core (~2 µs when both share one), and
  /// ~10-14 µs when the worker must be woken from sleep. Spinning about as long
  /// as that penalty bounds the waste at twice the best choice (the ski-rental
  /// rule); 50 µs also bridges the serial gaps between the parallel kernels of
  /// one inference step, so workers sleep only between steps, after ≤ 50 µs of
  /// spinning each. Zero: sleep at once (for tests and measurements).
  std::chrono::nanoseconds spin = std::chrono::microseconds(50);
};

class ThreadPool {
 public:
  using Task = FunctionRef<void(size_t thread_index, PoolBarrier& barrier)>;

  /// A pool of `threads` participants: the caller of run() plus threads − 1
  /// workers, started here (0 is taken as 1: no workers, tasks run inline).
  /// If the OS refuses to start a thread the pool keeps those it has; size()
  /// tells how many participants there are.
  explicit ThreadPool(size_t threads, ThreadPoolOptions options = {});
  /// Stops and joins the workers. No run() may be in progress.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The number of participants of every run(), the caller included.
  size_t size() const { return workers_.size() + 1; }

  /// Calls task(i, barrier) once for every i in [0, size()): i = 0 on the
  /// calling thread, the others on the workers; returns when all are done.
  /// Everything written before run() is visible to the task, and everything
  /// the task writes is visible after run() returns.
  void run(Task task);

  using IndexedTask = FunctionRef<void(size_t task_index)>;

  /// Calls task(i) once for every i in [0, count), in any order, each on
  /// whichever participant claims it first (the caller included); returns
  /// when all are done. Unlike run(), a worker that has not started when the
  /// caller has claimed every index is withdrawn instead of waited for, so on
  /// a machine with more runnable threads than CPUs (a worker waiting for a
  /// CPU) the call costs about what the caller alone would take, not the
  /// worker's scheduling delay. Each participant owns the range
  /// split_range() would give it in a run() of the same count (the caller
  /// the first) and takes it in ascending order; whoever is done with its own
  /// then helps with the others', also in ascending order (consecutive column
  /// slices read ascending weights, which the hardware prefetchers follow;
  /// with the help taken descending, two threads sharing one CPU ran MiniLM
  /// 5% slower than one thread instead of 1%). So as long as nobody
  /// falls behind, a call over heads after a call over the columns that hold
  /// them runs each head on the core whose cache has its data, whatever the
  /// small delays in starting. No barrier: tasks must be
  /// independent. Same visibility guarantees as run().
  void run_tasks(size_t count, IndexedTask task);

 private:
  void worker_loop(size_t index);
  static void claim_tasks(detail::PoolState& s, size_t part) noexcept;

  std::unique_ptr<detail::PoolState> state_;
  std::vector<std::thread> workers_;
};

}  // namespace normrt
