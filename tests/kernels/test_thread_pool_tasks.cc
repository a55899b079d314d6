// ThreadPool::run_tasks(): every index runs exactly once, whichever
// participant claims it, for any count and pool size; its results are
// visible when it returns; and mixed with run() (barrier included) on a pool
// whose threads share one CPU, where workers are routinely withdrawn before
// they wake and take a later offer instead, nothing is lost or run twice;
// and on two threads each takes its own half first, every range ascending.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "kernels/common/thread_pool.h"
#include "tests/support/affinity.h"

namespace normrt::testing {
namespace {

constexpr size_t kPoolSizes[] = {1, 2, 3, 4, 8};
constexpr size_t kCounts[] = {0, 1, 2, 3, 5, 8, 64, 1000};

ThreadPoolOptions spin_for(std::chrono::nanoseconds spin) {
  ThreadPoolOptions options;
  options.spin = spin;
  return options;
}

// One run_tasks(count) on `pool`: each index's counter is bumped by the task
// and its value (index · 3 + 1) written to a plain vector; checks both.
void check_once(ThreadPool& pool, size_t count, uint64_t round) {
  std::unique_ptr<std::atomic<uint32_t>[]> calls(new std::atomic<uint32_t>[count + 1]);
  for (size_t i = 0; i <= count; ++i) calls[i].store(0);
  std::vector<uint64_t> values(count, 0);
  pool.run_tasks(count, [&](size_t i) {
    calls[i].fetch_add(1, std::memory_order_relaxed);
    values[i] = i * 3 + round;
  });
  size_t wrong_calls = 0, wrong_values = 0;
  for (size_t i = 0; i < count; ++i) {
    wrong_calls += calls[i].load() != 1;
    wrong_values += values[i] != i * 3 + round;
  }
  CHECK(wrong_calls == 0);
  CHECK(wrong_values == 0);
}

TEST_SUITE("thread_pool") {
  TEST_CASE("run_tasks runs every index exactly once, for any count and pool size") {
    for (auto spin : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(50000)}) {
      for (size_t threads : kPoolSizes) {
        ThreadPool pool(threads, spin_for(spin));
        for (size_t count : kCounts) {
          CAPTURE(threads);
          CAPTURE(count);
          for (uint64_t round = 1; round <= 20; ++round) check_once(pool, count, round);
        }
      }
    }
  }

  TEST_CASE("on two threads each runs its own half first, and every range in ascending order") {
    // Each task takes ~100 µs, so a worker that wakes takes a share. The
    // caller owns [0, 8), the worker [8, 16) (the split split_range() gives a
    // run(): attention heads then run where the matmul before wrote their
    // columns); each takes its own range from the front, then helps with the
    // other's, also from the front (ascending weights for the prefetchers).
    ThreadPool pool(2);
    constexpr size_t kCount = 16, kHalf = 8;
    const std::thread::id caller = std::this_thread::get_id();
    size_t worker_ran = 0;
    for (int round = 0; round < 20; ++round) {
      std::vector<std::thread::id> owner(kCount);
      std::vector<size_t> started(kCount);
      std::atomic<size_t> clock{0};
      pool.run_tasks(kCount, [&](size_t i) {
        started[i] = clock.fetch_add(1);
        owner[i] = std::this_thread::get_id();
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
        while (std::chrono::steady_clock::now() < until) {
        }
      });
      CAPTURE(round);
      // No check of who ran index 0: a caller preempted right after the
      // offer (a loaded CI machine) can find the worker done with its half
      // and helping with the caller's, from its front.
      // The start times of one thread's tasks in [begin, begin + kHalf), by index.
      const auto starts = [&](bool by_caller, size_t begin) {
        std::vector<size_t> times;
        for (size_t i = begin; i < begin + kHalf; ++i) {
          if ((owner[i] == caller) == by_caller) times.push_back(started[i]);
        }
        return times;
      };
      for (bool by_caller : {true, false}) {
        CAPTURE(by_caller);
        const std::vector<size_t> own = starts(by_caller, by_caller ? 0 : kHalf);
        const std::vector<size_t> other = starts(by_caller, by_caller ? kHalf : 0);
        CHECK(std::is_sorted(own.begin(), own.end()));
        CHECK(std::is_sorted(other.begin(), other.end()));
        if (!own.empty() && !other.empty()) CHECK(own.back() < other.front());
      }
      for (size_t i = 0; i < kCount; ++i) worker_ran += owner[i] != caller;
    }
    MESSAGE("tasks the worker ran in 20 rounds of 16: " << worker_ran);
  }

  TEST_CASE("run_tasks mixed with barrier runs on threads sharing one CPU loses nothing") {
    // Workers started under a one-CPU mask keep it: they queue behind the
    // caller, so the caller often claims every index first and withdraws
    // them, and they wake later to a newer offer.
    const AffinityScope one_cpu(1);
    for (auto spin : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(2000)}) {
      for (size_t threads : {size_t{2}, size_t{3}}) {
        ThreadPool pool(threads, spin_for(spin));
        std::vector<uint64_t> seen(threads, 0);
        size_t barrier_failures = 0;
        for (uint64_t round = 1; round <= 1500; ++round) {
          CAPTURE(threads);
          CAPTURE(round);
          check_once(pool, 2 + round % 5, round);
          if (round % 3 == 0) {
            pool.run([&](size_t t, PoolBarrier& barrier) {
              seen[t] = round;
              barrier.arrive_and_wait();
              if (t == 0) {
                for (uint64_t s : seen) barrier_failures += s != round;
              }
            });
          }
        }
        CHECK(barrier_failures == 0);
      }
    }
  }
}

}  // namespace
}  // namespace normrt::testing
