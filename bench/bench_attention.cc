// bench_attention: the attention kernels (kernels/attention) per ISA beside
// the runtime's attention before them (bench/attention_baseline.cc: one query
// row at a time, per-key dot products, no ISA flags), and a decoder token
// beside a read floor that streams its K and V once. One thread.
//
// Benchmarks, named <case>/<impl>/<size>:
//   encoder/<impl>/S   all-MiniLM-L6-v2's attention: 12 heads × d 32,
//                      bidirectional, S queries over S keys; impl is
//                      baseline or an ISA (avx2, avx512, neon).
//   decode/<impl>/C    one new token over a KV cache of C positions
//                      (Llama-style: 32 heads, 8 kv heads, d 128, causal);
//                      impl is baseline, an ISA, or read_floor (an integer
//                      sum over the same K and V bytes, AVX-512, with the
//                      linear read floor's prefetches or without, whichever
//                      streams faster here). The caches rotate over
//                      copies totalling dram_rotation_bytes() (2 × L3), so every call reads them
//                      from DRAM, as a decoder's layers do one token apart.
//                      Each copy is laid out as a session's state holds a
//                      layer's caches: K then V in one buffer, in huge pages.
//   paired_encoder/S   the best ISA and the baseline alternating in one loop:
//                      counters normrt_us, baseline_us and ratio (median of
//                      per-pair baseline ÷ normrt).
//   paired_decode/C    the best ISA and the read floor alternating: ratio =
//                      median of per-pair kernel ÷ floor (target ≤ 1.2).
// On a shared machine quote the paired ratios: both sides see the same load.
// A summary table follows the run; it and the paired counters use the
// thread's CPU time, since other processes' time slices land in wall-clock
// time.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/aligned_buffer.h"
#include "bench/attention_baseline.h"
#include "bench/bench_args.h"
#include "bench/dram_rotation.h"
#include "bench/read_floor.h"
#include "bench/result_collector.h"
#include "kernels/attention/attention.h"

namespace normrt::bench {
namespace {

constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.2";
constexpr size_t kEncoderLengths[] = {8, 32, 128, 256, 512};
constexpr size_t kContexts[] = {512, 2048, 4096};

// One attention shape and its operands: q and out once, k and v in
// `copies` rotating copies, each K then V in one buffer.
struct Problem {
  AttentionParams params;
  size_t query_rows = 0, key_rows = 0, position = 0;
  size_t kv_floats = 0;                  // of K, and of V
  std::optional<bool> floor_prefetches;  // read_floor's loop, chosen at its first call
  AlignedBuffer q, out;
  std::vector<AlignedBuffer> kv;
  size_t next = 0;

  Problem(AttentionParams p, size_t rows, size_t keys, size_t copies)
      : params(p),
        query_rows(rows),
        key_rows(keys),
        position(p.causal ? keys - rows : 0),
        kv_floats(keys * p.kv_heads * p.head_dim),
        q(rows * p.heads * p.head_dim),
        out(rows * p.heads * p.head_dim) {
    q.fill_normal(0.0f, 1.0f, 1);
    for (size_t c = 0; c < copies; ++c) {
      kv.push_back(AlignedBuffer::in_huge_pages(2 * kv_floats));
      kv.back().fill_normal(0.0f, 1.0f, 2 + static_cast<uint32_t>(c));
    }
  }
  const float* k(size_t copy) const { return kv[copy].data(); }
  const float* v(size_t copy) const { return kv[copy].data() + kv_floats; }
  size_t kv_bytes() const { return 2 * kv_floats * sizeof(float); }
  size_t take() {
    const size_t c = next;
    next = (next + 1) % kv.size();
    return c;
  }

  AttentionArgs args(size_t copy) {
    AttentionArgs a;
    a.query_rows = query_rows;
    a.key_rows = key_rows;
    a.q = q.data();
    a.k = k(copy);
    a.v = v(copy);
    a.out = out.data();
    a.query_position = position;
    return attention_dense(params, a);
  }
  baseline::AttentionProblem baseline_problem(size_t copy) {
    baseline::AttentionProblem b;
    b.q = q.data();
    b.q_stride = b.out_stride = params.heads * params.head_dim;
    b.k = k(copy);
    b.v = v(copy);
    b.kv_stride = params.kv_heads * params.head_dim;
    b.out = out.data();
    b.query_rows = query_rows;
    b.key_rows = key_rows;
    b.heads = params.heads;
    b.kv_heads = params.kv_heads;
    b.head_dim = params.head_dim;
    b.scale = params.scale;
    b.causal = params.causal;
    b.first_query_position = position;
    return b;
  }
};

// Problems are built once per shape (filling 128 MB of caches takes a
// second) and kept: Google Benchmark calls a benchmark function several times.
Problem& encoder_problem(size_t s) {
  static std::map<size_t, std::unique_ptr<Problem>> problems;
  std::unique_ptr<Problem>& p = problems[s];
  if (!p)
    p = std::make_unique<Problem>(AttentionParams{12, 12, 32, 1.0f / std::sqrt(32.0f), false}, s, s,
                                  1);
  return *p;
}

Problem& decode_problem(size_t context) {
  static std::map<size_t, std::unique_ptr<Problem>> problems;
  std::unique_ptr<Problem>& p = problems[context];
  if (!p) {
    const size_t copy_bytes = size_t{2} * context * 8 * 128 * sizeof(float);
    const size_t copies =
        std::max<size_t>(2, (dram_rotation_bytes() + copy_bytes - 1) / copy_bytes);
    p = std::make_unique<Problem>(AttentionParams{32, 8, 128, 1.0f / std::sqrt(128.0f), true}, 1,
                                  context, copies);
  }
  return *p;
}

// CPU time of the calling thread: on a machine whose cores other processes
// share, wall-clock time also counts their time slices.
double thread_cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e9 * static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec);
}

// Whether the read floor prefetches: the faster of the two loops over this
// machine's pages (in 4 KB pages the prefetching one, in huge pages on the
// Xeon the plain one by 2-5%). Timed at the first call, 8 alternations over
// the copies.
bool floor_prefetches(Problem& p) {
  if (p.floor_prefetches) return *p.floor_prefetches;
  std::vector<double> with, without;
  for (int i = 0; i < 8; ++i) {
    double t0 = thread_cpu_ns();
    benchmark::DoNotOptimize(read_sum<true>(p.k(p.take()), p.kv_bytes()));
    with.push_back(thread_cpu_ns() - t0);
    t0 = thread_cpu_ns();
    benchmark::DoNotOptimize(read_sum<false>(p.k(p.take()), p.kv_bytes()));
    without.push_back(thread_cpu_ns() - t0);
  }
  std::sort(with.begin(), with.end());
  std::sort(without.begin(), without.end());
  p.floor_prefetches = with[4] <= without[4];
  return *p.floor_prefetches;
}

uint32_t read_floor(Problem& p, size_t copy) {
  // K and V, contiguous, stream from beyond L2.
  return floor_prefetches(p) ? read_sum<true>(p.k(copy), p.kv_bytes())
                             : read_sum<false>(p.k(copy), p.kv_bytes());
}

// The best runnable SIMD variant (the last runnable one), or null.
const AttentionVariant* best_variant() {
  const AttentionVariant* best = nullptr;
  for (const AttentionVariant& v : attention_variants()) {
    if (v.isa != Isa::kScalar && isa_runnable(v.isa)) best = &v;
  }
  return best;
}

void run_normrt(Problem& p, const AttentionVariant& variant) {
  attention_run(variant.kernel, p.params, p.args(p.take()), nullptr);
  benchmark::DoNotOptimize(p.out.data());
}

void run_baseline(Problem& p) {
  baseline::attend_tasks(p.baseline_problem(p.take()), 0, 1);
  benchmark::DoNotOptimize(p.out.data());
}

void bench_normrt(benchmark::State& state, Problem& p, const AttentionVariant* variant) {
  for (auto _ : state) run_normrt(p, *variant);
}

void bench_baseline(benchmark::State& state, Problem& p) {
  for (auto _ : state) run_baseline(p);
}

void bench_read_floor(benchmark::State& state, Problem& p) {
  if (!__builtin_cpu_supports("avx512f")) return state.SkipWithError("needs AVX-512");
  for (auto _ : state) benchmark::DoNotOptimize(read_floor(p, p.take()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * p.kv_bytes()));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// `first` and `second` alternating, a block of calls each per iteration
// (enough for ~100 us, so that reading the clock costs nothing); counters:
// each one's median CPU time per call and the median per-pair ratio
// second ÷ first.
template <class First, class Second>
void bench_paired(benchmark::State& state, First first, Second second, const char* first_name,
                  const char* second_name) {
  auto timed = [](auto& f, size_t calls) {
    const double t0 = thread_cpu_ns();
    for (size_t i = 0; i < calls; ++i) f();
    return (thread_cpu_ns() - t0) / static_cast<double>(calls);
  };
  const double once = std::min(timed(first, 1), timed(second, 1));
  const size_t calls = std::clamp<size_t>(static_cast<size_t>(1e5 / std::max(once, 1.0)), 1, 64);
  std::vector<double> a_ns, b_ns, ratios;
  for (auto _ : state) {
    const double a = timed(first, calls), b = timed(second, calls);
    a_ns.push_back(a);
    b_ns.push_back(b);
    ratios.push_back(b / a);
  }
  state.counters[first_name] = median(a_ns) / 1e3;
  state.counters[second_name] = median(b_ns) / 1e3;
  state.counters["ratio"] = median(ratios);
}

// Keeps the paired benchmarks' ratios beside the times.
class PairedCollector : public ResultCollector {
 public:
  using ResultCollector::ResultCollector;
  void ReportRuns(const std::vector<Run>& runs) override {
    ResultCollector::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.counters.count("ratio") == 0) continue;
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      ratios_[run.run_name.function_name] = run.counters.at("ratio").value;
    }
  }
  double ratio(const std::string& name) const {
    auto r = ratios_.find(name);
    return r == ratios_.end() ? 0.0 : r->second;
  }
  /// CPU time per call (see thread_cpu_ns()), 0 if the benchmark did not run.
  double us(const std::string& name) const {
    const auto all = times();
    auto t = all.find(name);
    return t == all.end() ? 0.0 : t->second.cpu_ns / 1e3;
  }

 private:
  std::map<std::string, double> ratios_;
};

std::vector<const AttentionVariant*> simd_variants() {
  std::vector<const AttentionVariant*> out;
  for (const AttentionVariant& v : attention_variants()) {
    if (v.isa != Isa::kScalar) out.push_back(&v);
  }
  return out;
}

void register_benchmarks() {
  const AttentionVariant* best = best_variant();
  for (size_t s : kEncoderLengths) {
    const std::string size = std::to_string(s);
    benchmark::RegisterBenchmark(("encoder/baseline/" + size).c_str(), [s](benchmark::State& st) {
      bench_baseline(st, encoder_problem(s));
    });
    for (const AttentionVariant* v : simd_variants()) {
      benchmark::RegisterBenchmark(
          ("encoder/" + std::string(isa_name(v->isa)) + "/" + size).c_str(),
          [s, v](benchmark::State& st) {
            if (!isa_runnable(v->isa)) return st.SkipWithError("ISA not runnable here");
            bench_normrt(st, encoder_problem(s), v);
          });
    }
    if (best != nullptr) {
      benchmark::RegisterBenchmark(("paired_encoder/" + size).c_str(),
                                   [s, best](benchmark::State& st) {
                                     Problem& p = encoder_problem(s);
                                     bench_paired(
                                         st, [&] { run_normrt(p, *best); },
                                         [&] { run_baseline(p); }, "normrt_us", "baseline_us");
                                   });
    }
  }
  for (size_t c : kContexts) {
    const std::string size = std::to_string(c);
    benchmark::RegisterBenchmark(("decode/read_floor/" + size).c_str(), [c](benchmark::State& st) {
      bench_read_floor(st, decode_problem(c));
    });
    benchmark::RegisterBenchmark(("decode/baseline/" + size).c_str(), [c](benchmark::State& st) {
      bench_baseline(st, decode_problem(c));
    });
    for (const AttentionVariant* v : simd_variants()) {
      benchmark::RegisterBenchmark(("decode/" + std::string(isa_name(v->isa)) + "/" + size).c_str(),
                                   [c, v](benchmark::State& st) {
                                     if (!isa_runnable(v->isa))
                                       return st.SkipWithError("ISA not runnable here");
                                     bench_normrt(st, decode_problem(c), v);
                                   });
    }
    if (best != nullptr) {
      benchmark::RegisterBenchmark(
          ("paired_decode/" + size).c_str(), [c, best](benchmark::State& st) {
            if (!__builtin_cpu_supports("avx512f")) return st.SkipWithError("needs AVX-512");
            Problem& p = decode_problem(c);
            // Floor and kernel read different copies, each one not read since its
            // last turn in the rotation.
            bench_paired(
                st, [&] { benchmark::DoNotOptimize(read_floor(p, p.take())); },
                [&] { run_normrt(p, *best); }, "floor_us", "kernel_us");
          });
    }
  }
}

void print_summary(const PairedCollector& c, std::ostream& out) {
  const std::vector<const AttentionVariant*> variants = simd_variants();
  char line[256];
  out << "\nEncoder, 12 heads x d 32 (all-MiniLM-L6-v2), one thread: CPU us per call; "
         "baseline / ISA\n";
  std::snprintf(line, sizeof line, "%-6s %10s", "S", "baseline");
  out << line;
  for (const AttentionVariant* v : variants) {
    std::snprintf(line, sizeof line, " %10s %8s", isa_name(v->isa), "ratio");
    out << line;
  }
  out << "   paired baseline/best\n";
  for (size_t s : kEncoderLengths) {
    const std::string size = std::to_string(s);
    const double base = c.us("encoder/baseline/" + size);
    std::snprintf(line, sizeof line, "%-6zu %10.1f", s, base);
    out << line;
    for (const AttentionVariant* v : variants) {
      const double t = c.us("encoder/" + std::string(isa_name(v->isa)) + "/" + size);
      std::snprintf(line, sizeof line, " %10.1f %8.2f", t, t > 0 ? base / t : 0.0);
      out << line;
    }
    std::snprintf(line, sizeof line, "   %8.2f\n", c.ratio("paired_encoder/" + size));
    out << line;
  }
  out << "\nDecoder token, 32 heads / 8 kv heads, d 128, K and V from DRAM: CPU us per call; "
         "ISA / read floor\n";
  std::snprintf(line, sizeof line, "%-6s %10s %10s", "C", "floor", "baseline");
  out << line;
  for (const AttentionVariant* v : variants) {
    std::snprintf(line, sizeof line, " %10s %8s", isa_name(v->isa), "/floor");
    out << line;
  }
  out << "   paired best/floor\n";
  for (size_t ctx : kContexts) {
    const std::string size = std::to_string(ctx);
    const double floor = c.us("decode/read_floor/" + size);
    std::snprintf(line, sizeof line, "%-6zu %10.1f %10.1f", ctx, floor,
                  c.us("decode/baseline/" + size));
    out << line;
    for (const AttentionVariant* v : variants) {
      const double t = c.us("decode/" + std::string(isa_name(v->isa)) + "/" + size);
      std::snprintf(line, sizeof line, " %10.1f %8.2f", t, floor > 0 ? t / floor : 0.0);
      out << line;
    }
    std::snprintf(line, sizeof line, "   %8.2f\n", c.ratio("paired_decode/" + size));
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
  benchmark::AddCustomContext("threads", "1");
  register_benchmarks();
  PairedCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector, collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
