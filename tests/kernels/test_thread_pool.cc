// ThreadPool, PoolBarrier and split_range: every participant runs once per
// run() with its own index on a persistent thread; barrier phases order
// writes; thousands of back-to-back runs neither lose a wake-up nor deadlock,
// with waiters spinning, sleeping at once, or racing between the two; run()
// allocates nothing; an idle pool sleeps; split_range tiles [0, n) on aligned
// boundaries. Pools of up to 8 threads run on any machine (2 cores included).
//
// This file replaces the global operator new/delete for the whole test binary
// with counting versions over malloc/free, to check run()'s zero-allocation
// contract. (Under AddressSanitizer that hides new/delete mismatches, which
// the sanitizer build of the other tests then does not report.)

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <new>
#include <numeric>
#include <thread>
#include <vector>

#include "kernels/common/thread_pool.h"

namespace {

std::atomic<size_t> g_allocations{0};

void* counted_alloc(size_t size, size_t alignment) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  size = std::max<size_t>(size, 1);
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

// The array and nothrow forms forward to these in libstdc++ and libc++. (GCC
// sees the probe in the allocation test pair operator new with free() here.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(size_t size) { return counted_alloc(size, 0); }
void* operator new(size_t size, std::align_val_t a) {
  return counted_alloc(size, static_cast<size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace normrt::testing {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

constexpr size_t kSizes[] = {1, 2, 3, 4, 8};

// Stress iterations, shortened under qemu and sanitizers (NORMRT_TEST_QUICK=1).
size_t iterations(size_t full) {
  const char* quick = std::getenv("NORMRT_TEST_QUICK");
  return quick != nullptr && *quick != '\0' && *quick != '0' ? std::max<size_t>(full / 8, 1) : full;
}

// The waiting policies the stress tests cover: sleep at once (every wait takes
// the sleep path), a spin so short that wake-ups race the fall into sleep, and
// the default.
struct Policy {
  const char* name;
  ThreadPoolOptions options;
};
std::vector<Policy> policies() {
  return {{"sleep at once", ThreadPoolOptions{nanoseconds(0)}},
          {"spin 1 us", ThreadPoolOptions{microseconds(1)}},
          {"default spin", ThreadPoolOptions{}}};
}

// Runs [0, n) through the three phases of the fused Linear→Norm kernel and
// returns whether every output is right: each participant sums its slice into
// a partial, barrier, each adds up all partials into its own total, barrier,
// each scales its slice by its total. Integers, so the check is exact.
bool phased_sum_is_exact(ThreadPool& pool, size_t n, size_t align, uint64_t seed) {
  std::vector<uint64_t> data(n), out(n);
  for (size_t j = 0; j < n; ++j) data[j] = (j * 2654435761u + seed) % 1000;
  const uint64_t expected_total = std::accumulate(data.begin(), data.end(), uint64_t{0});
  std::vector<uint64_t> partial(pool.size(), ~uint64_t{0}), total(pool.size(), 0);
  pool.run([&](size_t t, PoolBarrier& barrier) {
    const Range r = split_range(n, pool.size(), t, align);
    partial[t] = std::accumulate(data.begin() + r.begin, data.begin() + r.end, uint64_t{0});
    barrier.arrive_and_wait();
    total[t] = std::accumulate(partial.begin(), partial.end(), uint64_t{0});
    barrier.arrive_and_wait();  // a second phase: no one reads `partial` any more
    partial[t] = 0;
    for (size_t j = r.begin; j < r.end; ++j) out[j] = data[j] * total[t];
  });
  for (size_t t = 0; t < pool.size(); ++t) {
    if (total[t] != expected_total) return false;
  }
  for (size_t j = 0; j < n; ++j) {
    if (out[j] != data[j] * expected_total) return false;
  }
  return true;
}

// Process CPU time (all threads).
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

TEST_SUITE("thread_pool") {
  TEST_CASE("split_range tiles [0, n) in order, on align multiples, balanced to one block") {
    for (size_t align : {1, 2, 3, 4, 8, 16, 64}) {
      for (size_t parts = 1; parts <= 9; ++parts) {
        for (size_t n : {0,  1,  2,   3,   5,   7,   8,   15,   16,   17,   31,   63,
                         64, 65, 100, 127, 129, 500, 576, 1000, 1023, 1024, 1025, 4099}) {
          const size_t blocks = (n + align - 1) / align;
          size_t expected_begin = 0, min_blocks = SIZE_MAX, max_blocks = 0;
          for (size_t i = 0; i < parts; ++i) {
            const Range r = split_range(n, parts, i, align);
            INFO("n " << n << ", parts " << parts << ", align " << align << ", index " << i << ": ["
                      << r.begin << ", " << r.end << ")");
            REQUIRE(r.begin == expected_begin);
            REQUIRE(r.begin <= r.end);
            REQUIRE(r.end <= n);
            REQUIRE((r.begin % align == 0 || r.begin == n));
            REQUIRE((r.end % align == 0 || r.end == n));
            const size_t b = (r.size() + align - 1) / align;
            min_blocks = std::min(min_blocks, b);
            max_blocks = std::max(max_blocks, b);
            expected_begin = r.end;
          }
          INFO("n " << n << ", parts " << parts << ", align " << align);
          CHECK(expected_begin == n);
          CHECK(max_blocks - min_blocks <= 1);
          CHECK(max_blocks == (blocks + parts - 1) / parts);
        }
      }
    }
  }

  TEST_CASE("split_range with fewer blocks than parts leaves the last slices empty") {
    // n < parts·align: 10 columns, panels of 4, 4 threads.
    const size_t n = 10, parts = 4, align = 4;
    const Range expected[] = {{0, 4}, {4, 8}, {8, 10}, {10, 10}};
    for (size_t i = 0; i < parts; ++i) {
      const Range r = split_range(n, parts, i, align);
      INFO("index " << i << ": [" << r.begin << ", " << r.end << ")");
      CHECK(r.begin == expected[i].begin);
      CHECK(r.end == expected[i].end);
    }
    CHECK(split_range(3, 2, 0, 64).size() == 3);
    CHECK(split_range(3, 2, 1, 64).empty());
  }

  TEST_CASE("FunctionRef calls the referenced callable, state and all") {
    int calls = 0;
    auto count = [&calls](int by) { return calls += by; };
    FunctionRef<int(int)> ref = count;
    CHECK(ref(2) == 2);
    CHECK(ref(3) == 5);
    CHECK(calls == 5);
    FunctionRef<int(int)> copy = ref;
    CHECK(copy(1) == 6);
    int (*plain)(int) = [](int x) { return -x; };
    CHECK(FunctionRef<int(int)>(plain)(4) == -4);
  }

  TEST_CASE("size() counts the caller; 0 threads is taken as 1") {
    for (size_t n : kSizes) CHECK(ThreadPool(n).size() == n);
    CHECK(ThreadPool(0).size() == 1);
  }

  TEST_CASE("every participant runs exactly once per run, with its own index, on its own thread") {
    for (size_t n : kSizes) {
      CAPTURE(n);
      ThreadPool pool(n);
      std::vector<std::atomic<int>> calls(n);
      std::vector<std::thread::id> first_ids(n), ids(n);
      for (int run = 0; run < 200; ++run) {
        for (auto& c : calls) c.store(0);
        pool.run([&](size_t t, PoolBarrier& barrier) {
          CHECK(barrier.size() == n);
          if (t < n) {
            calls[t].fetch_add(1);
            ids[t] = std::this_thread::get_id();
          } else {
            calls[0].fetch_add(1000);  // an index out of range: fail below
          }
        });
        for (size_t t = 0; t < n; ++t) {
          INFO("run " << run << ", index " << t);
          REQUIRE(calls[t].load() == 1);
        }
        if (run == 0) first_ids = ids;
        // Persistent workers: index t always runs on the same thread.
        const bool same_threads = ids == first_ids;
        REQUIRE_MESSAGE(same_threads, "run " << run << " ran an index on a different thread");
      }
      const bool caller_is_zero = ids[0] == std::this_thread::get_id();
      CHECK_MESSAGE(caller_is_zero, "index 0 ran off the calling thread");
      std::vector<std::thread::id> sorted = ids;
      std::sort(sorted.begin(), sorted.end());
      const bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
      CHECK_MESSAGE(distinct, "two indices ran on one thread");
    }
  }

  TEST_CASE("a parallel sum with barrier phases is exact for 1, 2, 3, 4 and 8 threads") {
    for (size_t n : kSizes) {
      ThreadPool pool(n);
      for (size_t len : {0, 1, 7, 63, 64, 1000, 4097}) {
        for (size_t align : {1, 16, 64}) {
          INFO("threads " << n << ", length " << len << ", align " << align);
          CHECK(phased_sum_is_exact(pool, len, align, len + align));
        }
      }
    }
  }

  TEST_CASE("the barrier can be reused many times in one run, ordering plain writes") {
    constexpr size_t kPhases = 300;
    for (const Policy& policy : policies()) {
      for (size_t n : kSizes) {
        INFO(policy.name << ", threads " << n);
        ThreadPool pool(n, policy.options);
        std::vector<size_t> slots(n, 0);  // plain writes: the barrier must order them
        std::atomic<size_t> errors{0};
        pool.run([&](size_t t, PoolBarrier& barrier) {
          for (size_t phase = 1; phase <= kPhases; ++phase) {
            slots[t] = phase * n + t;
            barrier.arrive_and_wait();
            for (size_t u = 0; u < n; ++u) {
              if (slots[u] != phase * n + u) errors.fetch_add(1);
            }
            barrier.arrive_and_wait();  // everyone has read before anyone writes again
          }
        });
        CHECK(errors.load() == 0);
      }
    }
  }

  TEST_CASE("thousands of consecutive runs lose no wake-up (spinning, sleeping, racing)") {
    // Bounded by iterations; under a second in total on 2 cores.
    for (const Policy& policy : policies()) {
      for (size_t n : kSizes) {
        const size_t runs = iterations(n <= 4 ? 3000 : 1000);
        INFO(policy.name << ", threads " << n << ", runs " << runs);
        ThreadPool pool(n, policy.options);
        std::vector<uint64_t> seen(n, 0);
        size_t failures = 0;
        for (size_t run = 1; run <= runs; ++run) {
          pool.run([&](size_t t, PoolBarrier& barrier) {
            seen[t] = run;
            barrier.arrive_and_wait();
            if (t == 0) {
              for (uint64_t s : seen) failures += s != run;
            }
          });
        }
        CHECK(failures == 0);
      }
    }
  }

  TEST_CASE("run() allocates nothing after construction") {
    for (size_t n : kSizes) {
      CAPTURE(n);
      ThreadPool pool(n);
      // A capture larger than std::function's small buffer: it would allocate.
      std::vector<double> sums(n, 0.0);
      double a = 1, b = 2, c = 3, d = 4;
      auto task = [&sums, &a, &b, &c, &d](size_t t, PoolBarrier& barrier) {
        sums[t] += a + b;
        barrier.arrive_and_wait();
        sums[t] += c + d;
      };
      pool.run(task);  // warm-up: thread start-up may allocate (TLS, stacks)
      const size_t before = g_allocations.load();
      ::operator delete(::operator new(16));  // a direct call: not elidable, unlike `new T`
      REQUIRE_MESSAGE(g_allocations.load() == before + 1,
                      "the counting operator new is not in use");
      for (int run = 0; run < 1000; ++run) pool.run(task);
      pool.run([&](size_t t, PoolBarrier&) { sums[t] += a; });  // a temporary lambda
      CHECK(g_allocations.load() - before == 1);                // the probe above
      CHECK(sums[n - 1] == 1001 * 10.0 + 1.0);
    }
  }

  TEST_CASE("an idle pool sleeps instead of burning CPU") {
    ThreadPool pool(4);
    pool.run([](size_t, PoolBarrier& barrier) { barrier.arrive_and_wait(); });
    const double start = cpu_seconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double used = cpu_seconds() - start;
    // Three workers spinning would use ~0.4 s of CPU on 2 cores; sleeping ones ~0.
    INFO("CPU time while idle: " << used * 1e3 << " ms");
    CHECK(used < 0.05);
  }

  TEST_CASE("a pool can be destroyed right after construction, or after runs, asleep or spinning") {
    for (const Policy& policy : policies()) {
      for (size_t n : kSizes) {
        INFO(policy.name << ", threads " << n);
        for (int i = 0; i < 20; ++i) ThreadPool pool(n, policy.options);
        {
          ThreadPool pool(n, policy.options);
          for (int i = 0; i < 100; ++i) pool.run([](size_t, PoolBarrier&) {});
        }  // destroyed while its workers may still be spinning
        {
          ThreadPool pool(n, policy.options);
          pool.run([](size_t, PoolBarrier&) {});
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }  // destroyed while its workers sleep
      }
    }
  }
}

}  // namespace normrt::testing
