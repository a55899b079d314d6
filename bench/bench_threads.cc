// bench_threads: where a second thread pays for one request (batch 1). Runs
// unpinned (it needs two cores) and reports, per benchmark, the median of
// per-pair ratios of a call on 2 threads ÷ the same call on 1, the two
// alternating in one loop (bench/paired_timing.h), so that a shared
// machine's load moves both alike:
//   pool/round_trip           ThreadPool(2)::run() of an empty task, of a
//                             task with one barrier, and run_tasks() of two
//                             empty tasks (real time, fastest and median
//                             call): the fixed cost of a parallel node
//   linear/<what>/<K>x<N>/<M> fused_linear() as the runtime calls it for
//                             MiniLM's matmuls (q/k/v: bias; out and ffn2:
//                             bias, residual, LayerNorm; ffn1: bias, GELU)
//                             on the calling thread and on a ThreadPool(2)
//                             with the parallel threshold forced to 0
//   attention/<S>             attention_run() over MiniLM's 12 heads of 32,
//                             S queries and keys, on the calling thread and
//                             on a ThreadPool(2), the threshold forced to 0
// A table after the run lists, by multiply-adds, the fastest call on 1 and on
// 2 threads and their ratio (what each costs when it has the cores: the
// crossover there sets kFusedLinearMinParallelWork in
// kernels/linear/fused_linear.h and kAttentionMinParallelWork in
// kernels/attention/attention.h), and the median of per-pair ratios (what a
// loaded machine gives: on an oversubscribed one the second thread's wake-up
// waits for a CPU, and 2 threads lose at every size).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/bench_args.h"
#include "bench/paired_timing.h"
#include "kernels/attention/attention.h"
#include "kernels/common/isa.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"

namespace normrt::bench {
namespace {

constexpr size_t kRows[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr size_t kSequence[] = {2, 4, 8, 16, 32, 64, 128, 256};
constexpr size_t kHeads = 12, kHeadDim = 32;
constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.1";

ThreadPool& pool2() {
  static ThreadPool pool(2);
  return pool;
}

struct Row {
  double work = 0;   // multiply-adds per call
  double ratio = 0;  // 2 threads ÷ 1 thread, median of pairs
  double fastest_one_us = 0, fastest_two_us = 0;
};

std::map<std::string, Row>& rows() {
  static std::map<std::string, Row> table;
  return table;
}

// alternate() (bench/paired_timing.h) that also keeps each side's fastest call.
struct Alternation {
  double median_ratio = 0;  // b ÷ a, median of pairs
  double fastest_a_us = 0, fastest_b_us = 0;
};
template <class A, class B>
Alternation alternate_keeping_fastest(benchmark::State& state, A&& a, B&& b) {
  double fastest_a = 1e30, fastest_b = 1e30;
  auto timed = [](auto& call, double& fastest) {
    const auto start = std::chrono::steady_clock::now();
    call();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    fastest = std::min(fastest, us);
  };
  Alternation result;
  result.median_ratio = alternate(
      state, [&] { timed(a, fastest_a); }, [&] { timed(b, fastest_b); });
  result.fastest_a_us = fastest_a;
  result.fastest_b_us = fastest_b;
  return result;
}

void record(benchmark::State& state, const std::string& name, double work, const Alternation& t) {
  state.counters["2thr/1thr"] = t.median_ratio;
  state.counters["fastest_2/1"] = t.fastest_b_us / t.fastest_a_us;
  rows()[name] = {work, t.median_ratio, t.fastest_a_us, t.fastest_b_us};
}

void bench_round_trip(benchmark::State& state, bool with_barrier, bool tasks) {
  ThreadPool& pool = pool2();
  std::vector<double> times;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    if (tasks) {
      pool.run_tasks(2, [](size_t) {});
    } else {
      pool.run([&](size_t, PoolBarrier& barrier) {
        if (with_barrier) barrier.arrive_and_wait();
      });
    }
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (times.empty()) return;
  std::sort(times.begin(), times.end());
  state.counters["fastest_us"] = times.front();
  state.counters["median_us"] = times[times.size() / 2];
  state.counters["p90_us"] = times[times.size() * 9 / 10];
}

enum class Epilogue { kBias, kResidualLayerNorm, kGelu };

struct LinearCase {
  const char* what;
  size_t k, n;
  Epilogue epilogue;
};

void bench_linear(benchmark::State& state, LinearCase c, size_t m, const std::string& name) {
  AlignedBuffer w(c.n * c.k), x(m * c.k), y(m * c.n), b(c.n), residual(m * c.n), gain(c.n),
      beta(c.n);
  w.fill_normal(0.0f, 1.0f / std::sqrt(static_cast<float>(c.k)), 1);
  x.fill_normal(0.0f, 1.0f, 2);
  b.fill_normal(0.0f, 0.1f, 3);
  residual.fill_normal(0.0f, 1.0f, 4);
  gain.fill_normal(1.0f, 0.1f, 5);
  Expected<Isa> isa = selected_isa();
  Expected<PackedWeights> packed =
      isa ? pack_weights(w.data(), c.n, c.k, WeightType::kF32, *isa) : isa.status();
  if (!packed) return state.SkipWithError(packed.status().message().c_str());
  LinearEpilogue e;
  e.bias = b.data();
  if (c.epilogue == Epilogue::kResidualLayerNorm) {
    e.residual = residual.data();
    e.residual_stride = c.n;
    e.normalize = true;
    e.gain = gain.data();
    e.norm_bias = beta.data();
  } else if (c.epilogue == Epilogue::kGelu) {
    e.activation = Activation::kGeluErf;
  }
  const size_t previous_work = detail::set_fused_linear_min_parallel_work(0);
  const size_t previous_bytes = detail::set_fused_linear_min_parallel_bytes(0);
  const Alternation t = alternate_keeping_fastest(
      state, [&] { (void)fused_linear(*packed, x.data(), m, c.k, e, y.data(), c.n, nullptr); },
      [&] { (void)fused_linear(*packed, x.data(), m, c.k, e, y.data(), c.n, &pool2()); });
  detail::set_fused_linear_min_parallel_work(previous_work);
  detail::set_fused_linear_min_parallel_bytes(previous_bytes);
  record(state, name, static_cast<double>(m * c.n * c.k), t);
}

void bench_attention(benchmark::State& state, size_t s, const std::string& name) {
  AttentionParams params;
  params.heads = params.kv_heads = kHeads;
  params.head_dim = kHeadDim;
  params.scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  const size_t width = kHeads * kHeadDim;
  AlignedBuffer q(s * width), k(s * width), v(s * width), out(s * width);
  q.fill_normal(0.0f, 1.0f, 1);
  k.fill_normal(0.0f, 1.0f, 2);
  v.fill_normal(0.0f, 1.0f, 3);
  AttentionArgs args;
  args.query_rows = args.key_rows = s;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.out = out.data();
  args = attention_dense(params, args);
  Expected<AttentionKernel> kernel = selected_attention_kernel();
  if (!kernel) return state.SkipWithError(kernel.status().message().c_str());
  const size_t previous = detail::set_attention_min_parallel_work(0);
  const Alternation t = alternate_keeping_fastest(
      state, [&] { attention_run(*kernel, params, args, nullptr); },
      [&] { attention_run(*kernel, params, args, &pool2()); });
  detail::set_attention_min_parallel_work(previous);
  // attention_run()'s measure: S · heads · S · d multiply-adds (Q·Kᵀ; P·V as many again).
  record(state, name, 1.0 * s * s * kHeads * kHeadDim, t);
}

void register_benchmarks() {
  benchmark::RegisterBenchmark("pool/round_trip/empty", [](benchmark::State& s) {
    bench_round_trip(s, false, false);
  })->UseRealTime();
  benchmark::RegisterBenchmark("pool/round_trip/run_tasks", [](benchmark::State& s) {
    bench_round_trip(s, false, true);
  })->UseRealTime();
  benchmark::RegisterBenchmark("pool/round_trip/barrier", [](benchmark::State& s) {
    bench_round_trip(s, true, false);
  })->UseRealTime();
  const LinearCase cases[] = {{"qkv", 384, 384, Epilogue::kBias},
                              {"out_ln", 384, 384, Epilogue::kResidualLayerNorm},
                              {"ffn1_gelu", 384, 1536, Epilogue::kGelu},
                              {"ffn2_ln", 1536, 384, Epilogue::kResidualLayerNorm}};
  for (const LinearCase& c : cases) {
    for (size_t m : kRows) {
      const std::string name = std::string("linear/") + c.what + "/" + std::to_string(c.k) + "x" +
                               std::to_string(c.n) + "/" + std::to_string(m);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) {
        bench_linear(s, c, m, name);
      })->UseRealTime();
    }
  }
  for (size_t s : kSequence) {
    const std::string name = "attention/" + std::to_string(s);
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
      bench_attention(st, s, name);
    })->UseRealTime();
  }
}

void print_table(std::ostream& out) {
  out << "\n2 threads ÷ 1 thread (< 1: the second thread pays): fastest calls, and the median "
         "of alternating pairs\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-34s %12s %10s %10s %9s %9s\n", "case", "MACs", "1thr us",
                "2thr us", "fastest", "pairs");
  out << line;
  for (const auto& [name, row] : rows()) {
    std::snprintf(line, sizeof line, "%-34s %12.0f %10.2f %10.2f %9.3f %9.3f\n", name.c_str(),
                  row.work, row.fastest_one_us, row.fastest_two_us,
                  row.fastest_two_us / row.fastest_one_us, row.ratio);
    out << line;
  }
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  using namespace normrt::bench;
  std::vector<char*> args = with_default_min_time(argc, argv, kDefaultMinTimeFlag);
  int args_count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 1;
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  print_table(std::cout);
  benchmark::Shutdown();
  return 0;
}
