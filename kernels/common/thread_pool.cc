#include "kernels/common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace normrt {

Range split_range(size_t n, size_t parts, size_t index, size_t align) {
  assert(parts >= 1 && index < parts && align >= 1);
  // Deal ceil(n / align) blocks: `base` to every slice, one more to the first
  // `extra`. Block indices never exceed `blocks`, and block b < blocks starts
  // below n, so b·align cannot overflow.
  const size_t blocks = n / align + (n % align != 0 ? 1 : 0);
  const size_t base = blocks / parts, extra = blocks % parts;
  const auto first_block = [&](size_t i) { return i * base + std::min(i, extra); };
  const auto start = [&](size_t block) { return block >= blocks ? n : block * align; };
  return Range{start(first_block(index)), start(first_block(index + 1))};
}

// A worker's offer slot (PoolState::offers).
constexpr uint32_t kIdle = 0, kOffered = 1, kStarted = 2, kWithdrawn = 3;

namespace detail {
namespace {

// 128: two lines, because Intel's adjacent-line prefetcher pulls lines in
// pairs, and some AArch64 cores have 128-byte lines.
constexpr size_t kCacheLine = 128;

// A waiter pauses this many times (~0.3 µs) before it starts yielding. Pausing
// longer bought nothing when the participants had a CPU each (run() round trip
// ~0.8 µs either way) and cost twice the pause time per hand-off when they
// shared one (each holds the CPU that long before yielding): 2 µs of pausing
// took a round trip from 1.9 to ~6 µs, 5 µs to ~12 µs, pure pausing to the
// whole spin time (measured with a throwaway driver on a busy 2-core KVM).
constexpr int kPauses = 16;

constexpr auto kNoTask = [](size_t, PoolBarrier&) {};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// Where threads wait for a condition that another thread makes true: pause a
// few times, yield for up to `spin`, then sleep on a condition variable. Whoever makes the
// condition true calls wake_all() afterwards; it costs one atomic load unless
// someone sleeps.
//
// No lost wake-ups: the sleeper increments `sleepers_` and then re-checks the
// condition, the waker makes the condition true and then reads `sleepers_`,
// all four seq_cst. In their single total order either the sleeper's check
// sees the condition or the waker sees the sleeper; in the latter case the
// waker's lock/unlock of `mutex_` cannot complete before the sleeper is inside
// cv_.wait(), so the notification reaches it. The condition's loads and the
// waker's stores must therefore be seq_cst.
class alignas(kCacheLine) Parker {
 public:
  template <class Condition>
  void wait(Condition done, std::chrono::nanoseconds spin) {
    for (int i = 0; i < kPauses; ++i) {
      if (done()) return;
      cpu_relax();
    }
    // Then yield until `spin` is over: whoever we wait for may be queued on
    // this very CPU (a worker just woken lands on its waker's CPU; a busy or
    // oversubscribed machine) and would not run before we sleep. With nothing
    // else to run, a yield returns in ~0.3 µs.
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + spin;
    while (!done()) {
      if (Clock::now() >= deadline) {
        sleep_until(done);
        return;
      }
      std::this_thread::yield();
    }
  }

  void wake_all() {
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    { std::lock_guard<std::mutex> lock(mutex_); }
    cv_.notify_all();
  }

 private:
  template <class Condition>
  void sleep_until(Condition done) {
    std::unique_lock<std::mutex> lock(mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (!done()) cv_.wait(lock);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

  std::atomic<uint32_t> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace

// One participant's range of run_tasks() indices, on its own cache line.
struct alignas(kCacheLine) RangeClaims {
  std::atomic<size_t> next{0};  // the next index to hand out, from the range's start
};

// The shared state of one pool. Each field that several threads write sits on
// its own cache line, with the Parker its waiters use.
struct PoolState {
  ThreadPoolOptions options;

  // Published by run() before `generation` is bumped; read by the workers
  // after they see the bump.
  ThreadPool::Task task = kNoTask;
  PoolBarrier* barrier = nullptr;
  // Debug builds: set while a run() is in progress, to catch reentrance.
  std::atomic<bool> running{false};

  // Work: bumped once per run() (and once more to stop); workers wait for it to change.
  alignas(kCacheLine) std::atomic<uint32_t> generation{0};
  // Written before the final bump. Atomic: a worker withdrawn by run_tasks()
  // may wake late and read it while the destructor writes it.
  std::atomic<bool> stop{false};
  Parker work_parker;

  // Completion: workers still running the current task; the caller waits for 0.
  alignas(kCacheLine) std::atomic<size_t> remaining{0};
  Parker done_parker;

  // run_tasks(): participant p owns the indices split_range(task_count,
  // parts, p); its range hands them out in order, to its owner and then also
  // to whoever has finished its own. And the task.
  std::unique_ptr<RangeClaims[]> claims;
  size_t task_count = 0, parts = 1;
  ThreadPool::IndexedTask indexed_task = [](size_t) {};
  bool claiming = false;  // this offer is a run_tasks() one

  // Per worker: whether the current offer is still open (kOffered), taken
  // (kStarted) or withdrawn by run_tasks() (kWithdrawn). The slot, not the
  // generation, decides whether a worker runs the published task: a worker
  // withdrawn before it woke may see a later generation's offer instead.
  std::unique_ptr<std::atomic<uint32_t>[]> offers;

  // Barrier: arrivals in the current phase; the last arrival resets it and
  // bumps `barrier_phase`, which the others wait to see change.
  alignas(kCacheLine) std::atomic<size_t> arrived{0};
  alignas(kCacheLine) std::atomic<uint32_t> barrier_phase{0};
  Parker barrier_parker;
};

}  // namespace detail

void PoolBarrier::arrive_and_wait() {
  if (size_ == 1) return;
  detail::PoolState& s = *state_;
  // The phase cannot move on before this thread arrives, so this reads the
  // current one.
  const uint32_t phase = s.barrier_phase.load(std::memory_order_acquire);
  // acq_rel: the arrivals form a release sequence, so the last one to arrive
  // has seen every participant's writes, and publishes them with the bump.
  if (s.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == size_) {
    s.arrived.store(0, std::memory_order_relaxed);  // ordered before the bump
    s.barrier_phase.store(phase + 1, std::memory_order_seq_cst);
    s.barrier_parker.wake_all();
  } else {
    s.barrier_parker.wait([&] { return s.barrier_phase.load(std::memory_order_seq_cst) != phase; },
                          s.options.spin);
  }
}

ThreadPool::ThreadPool(size_t threads, ThreadPoolOptions options)
    : state_(std::make_unique<detail::PoolState>()) {
  threads = std::max<size_t>(threads, 1);
  state_->options = options;
  state_->offers = std::make_unique<std::atomic<uint32_t>[]>(threads);
  state_->claims = std::make_unique<detail::RangeClaims[]>(threads);
  for (size_t i = 0; i < threads; ++i) state_->offers[i].store(kIdle, std::memory_order_relaxed);
  workers_.reserve(threads - 1);
  for (size_t i = 1; i < threads; ++i) {
    try {
      workers_.emplace_back([this, i] { worker_loop(i); });
    } catch (const std::system_error&) {
      break;  // keep the workers we have: size() reports them
    }
  }
}

ThreadPool::~ThreadPool() {
  assert(!state_->running.load() && "ThreadPool destroyed during run()");
  state_->stop.store(true, std::memory_order_seq_cst);
  state_->generation.fetch_add(1, std::memory_order_seq_cst);
  state_->work_parker.wake_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::worker_loop(size_t index) {
  detail::PoolState& s = *state_;
  uint32_t seen = 0;
  for (;;) {
    s.work_parker.wait([&] { return s.generation.load(std::memory_order_seq_cst) != seen; },
                       s.options.spin);
    seen = s.generation.load(std::memory_order_acquire);
    if (s.stop.load(std::memory_order_seq_cst)) return;
    // Taking the offer (acquire) makes the task published before it visible.
    uint32_t offered = kOffered;
    if (!s.offers[index].compare_exchange_strong(offered, kStarted, std::memory_order_seq_cst)) {
      continue;  // withdrawn by run_tasks() before this worker woke
    }
    if (s.claiming) {
      claim_tasks(s, index);
    } else {
      s.task(index, *s.barrier);  // thread entry: an exception here terminates
    }
    s.offers[index].store(kIdle, std::memory_order_relaxed);  // before the release below
    if (s.remaining.fetch_sub(1, std::memory_order_seq_cst) == 1) s.done_parker.wake_all();
  }
}

void ThreadPool::claim_tasks(detail::PoolState& s, size_t part) noexcept {
  // Its own range first, then the others' that are not done, nearest first;
  // every range in ascending order (the weights of consecutive column slices
  // lie at ascending addresses, which the hardware prefetchers follow).
  for (size_t step = 0; step < s.parts; ++step) {
    const size_t owner = (part + step) % s.parts;
    const Range range = split_range(s.task_count, s.parts, owner);
    for (;;) {
      const size_t next = s.claims[owner].next.fetch_add(1, std::memory_order_relaxed);
      if (next >= range.size()) break;
      s.indexed_task(range.begin + next);
    }
  }
}

void ThreadPool::run(Task task) {
  // Non-reentrant; the exchange is a debug-only check.
  assert(!state_->running.exchange(true) && "ThreadPool::run is not reentrant");
  PoolBarrier barrier(state_.get(), size());
  // noexcept: a task that throws on this thread would leave the workers with
  // a dangling task, so it terminates, as on a worker.
  const auto run_own_part = [&]() noexcept { task(0, barrier); };
  if (workers_.empty()) {
    run_own_part();
  } else {
    detail::PoolState& s = *state_;
    s.task = task;
    s.barrier = &barrier;
    s.claiming = false;
    s.remaining.store(workers_.size(), std::memory_order_relaxed);
    for (size_t i = 1; i <= workers_.size(); ++i)
      s.offers[i].store(kOffered, std::memory_order_seq_cst);
    s.generation.fetch_add(1, std::memory_order_seq_cst);  // publishes the ones above
    s.work_parker.wake_all();
    run_own_part();
    s.done_parker.wait([&] { return s.remaining.load(std::memory_order_seq_cst) == 0; },
                       s.options.spin);
  }
#ifndef NDEBUG
  state_->running.store(false);
#endif
}

void ThreadPool::run_tasks(size_t count, IndexedTask task) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (size_t i = 0; i < count; ++i) task(i);
    return;
  }
  assert(!state_->running.exchange(true) && "ThreadPool::run is not reentrant");
  detail::PoolState& s = *state_;
  s.indexed_task = task;
  s.task_count = count;
  s.claiming = true;
  // Only as many workers as there are tasks beyond the caller's first.
  const size_t offered = std::min(workers_.size(), count - 1);
  s.parts = offered + 1;
  for (size_t p = 0; p < s.parts; ++p) s.claims[p].next.store(0, std::memory_order_relaxed);
  s.remaining.store(offered, std::memory_order_relaxed);
  for (size_t i = 1; i <= offered; ++i) s.offers[i].store(kOffered, std::memory_order_seq_cst);
  s.generation.fetch_add(1, std::memory_order_seq_cst);  // publishes the ones above
  s.work_parker.wake_all();
  claim_tasks(s, 0);
  // Every index is claimed. Withdraw the offers nobody took: those workers
  // never touch this call. The ones that took theirs are running (or done):
  // wait for them, as they may still be finishing a task.
  size_t withdrawn = 0;
  for (size_t i = 1; i <= offered; ++i) {
    uint32_t open = kOffered;
    withdrawn += s.offers[i].compare_exchange_strong(open, kWithdrawn, std::memory_order_seq_cst);
  }
  if (withdrawn > 0 && s.remaining.fetch_sub(withdrawn, std::memory_order_seq_cst) == withdrawn) {
    // Nobody else is running.
  } else {
    s.done_parker.wait([&] { return s.remaining.load(std::memory_order_seq_cst) == 0; },
                       s.options.spin);
  }
#ifndef NDEBUG
  state_->running.store(false);
#endif
}

}  // namespace normrt
