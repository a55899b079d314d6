#pragma once
// Two calls alternating in one benchmark loop (their ratio from the same
// moments of a shared machine), and the rotation of weight copies that makes
// every call stream its weights from DRAM. The same scheme as bench_linear's
// paired_* benchmarks; bench_linear_int8 uses this header.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>

namespace normrt::bench {

/// Cycles through a rotation of weight copies: the next index on each call.
class Rotation {
 public:
  explicit Rotation(size_t size) : size_(size) {}
  size_t take() {
    const size_t i = next_;
    next_ = next_ + 1 == size_ ? 0 : next_ + 1;
    return i;
  }

 private:
  size_t size_, next_ = 0;
};

/// Runs a() and b() alternating, each call timed, their order alternating;
/// returns b ÷ a from sums taken in the same moments (0 if nothing ran).
template <class A, class B>
double alternate(benchmark::State& state, A&& a, B&& b) {
  using Clock = std::chrono::steady_clock;
  auto timed = [](auto& call) {
    const Clock::time_point start = Clock::now();
    call();
    benchmark::ClobberMemory();
    return Clock::now() - start;
  };
  Clock::duration a_time{}, b_time{};
  bool a_first = true;
  for (auto _ : state) {
    if (a_first) {
      a_time += timed(a);
      b_time += timed(b);
    } else {
      b_time += timed(b);
      a_time += timed(a);
    }
    a_first = !a_first;
  }
  if (a_time.count() <= 0) return 0.0;
  return std::chrono::duration<double>(b_time).count() /
         std::chrono::duration<double>(a_time).count();
}

}  // namespace normrt::bench
