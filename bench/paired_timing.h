#pragma once
// Two calls alternating in one benchmark loop (their ratio from the same
// moments of a shared machine), and the rotation of weight copies that makes
// every call stream its weights from DRAM. The scheme of bench_linear's
// paired_* benchmarks, with the median of per-pair ratios (bench_rnn's
// statistic) instead of the ratio of sums; bench_linear_int8 uses it.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

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
/// returns the median over the pairs of b's time ÷ a's (0 if nothing ran).
/// Per pair, not of sums: on this shared machine another tenant preempts a
/// call now and then for far longer than it takes, and the median of the
/// pairs ignores those where the sum would absorb them.
template <class A, class B>
double alternate(benchmark::State& state, A&& a, B&& b) {
  using Clock = std::chrono::steady_clock;
  auto timed = [](auto& call) {
    const Clock::time_point start = Clock::now();
    call();
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<double> ratios;
  bool a_first = true;
  for (auto _ : state) {
    double a_time, b_time;
    if (a_first) {
      a_time = timed(a);
      b_time = timed(b);
    } else {
      b_time = timed(b);
      a_time = timed(a);
    }
    if (a_time > 0) ratios.push_back(b_time / a_time);
    a_first = !a_first;
  }
  if (ratios.empty()) return 0.0;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

}  // namespace normrt::bench
