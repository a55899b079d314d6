// Batches (runtime/exec/batch_support.h) on normrt-bench's MiniLM-shaped
// encoder (random weights, mean pooling): B sentences as one batched run
// beside the same B sentences as a loop of single runs, alternating in one
// loop (paired_timing.h), so their ratio comes from the same moments of a
// shared machine.
//
//   equal:  B sentences of 32 tokens: what one GEMM over B·S rows gains
//   ragged: B sentences of 8 to 64 tokens padded to the longest, the mask
//           set: the gain net of the padding's work
//
// Counters: sentences/s of the batch, and loop_time/batch_time (> 1: the
// batch is faster). Run pinned: taskset -c 1 build/release/bench/bench_batch
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "normrt/normrt.hpp"
#include "paired_timing.h"
#include "runtime/exec/compiled_model.h"
#include "tools/bench/builtin_encoder.h"

namespace normrt::bench {
namespace {

constexpr int64_t kWidth = 384, kMaxSequence = 128;

std::shared_ptr<const Model> encoder() {
  static std::shared_ptr<const Model> model = [] {
    auto graph = build_builtin_encoder(kWidth, kMaxSequence, 7);
    if (!graph) return std::shared_ptr<const Model>();
    auto compiled = compile_model(std::move(graph).value(), {});
    return compiled ? compiled.value() : std::shared_ptr<const Model>();
  }();
  return model;
}

struct Sentences {
  std::vector<std::vector<int64_t>> ids;
  size_t padded = 0;
  std::vector<int64_t> batch_ids, mask;  // [B, padded]
};

Sentences make_sentences(size_t batch, bool ragged) {
  std::mt19937 random(uint32_t(batch * 2 + ragged));
  Sentences s;
  for (size_t b = 0; b < batch; ++b) {
    const size_t length = ragged ? 8 + random() % 57 : 32;
    std::vector<int64_t> ids(length);
    for (auto& id : ids) id = 1000 + random() % 20000;
    s.padded = std::max(s.padded, length);
    s.ids.push_back(std::move(ids));
  }
  s.batch_ids.assign(batch * s.padded, 0);
  s.mask.assign(batch * s.padded, 0);
  for (size_t b = 0; b < batch; ++b) {
    std::copy(s.ids[b].begin(), s.ids[b].end(), s.batch_ids.begin() + b * s.padded);
    std::fill_n(s.mask.begin() + b * s.padded, s.ids[b].size(), 1);
  }
  return s;
}

void batch_vs_loop(benchmark::State& state, bool ragged) {
  const size_t batch = static_cast<size_t>(state.range(0));
  auto model = encoder();
  if (model == nullptr) return state.SkipWithError("the built-in encoder did not build");
  SessionOptions batched_options;
  batched_options.max_batch = batch;
  auto batched = Session::create(model, batched_options);
  auto single = Session::create(model);
  if (!batched || !single) return state.SkipWithError("Session::create failed");
  const Sentences s = make_sentences(batch, ragged);
  const TensorShape shape = TensorShape::of({batch, s.padded});
  bool ok = true;
  double batch_seconds = 0, loop_seconds = 0;
  size_t pairs = 0;
  using Clock = std::chrono::steady_clock;
  auto run_batch = [&] {
    const auto start = Clock::now();
    ok &= batched.value()
              ->set_input("input_ids", ElementType::kI64, s.batch_ids.data(), shape)
              .is_ok();
    ok &= batched.value()->set_attention_mask(ElementType::kI64, s.mask.data(), shape).is_ok();
    ok &= batched.value()->run().is_ok();
    batch_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    ++pairs;
  };
  auto run_loop = [&] {
    const auto start = Clock::now();
    for (const auto& ids : s.ids) {
      ok &=
          single.value()
              ->set_input("input_ids", ElementType::kI64, ids.data(), TensorShape::of({ids.size()}))
              .is_ok();
      ok &= single.value()->run().is_ok();
    }
    loop_seconds += std::chrono::duration<double>(Clock::now() - start).count();
  };
  const double ratio = alternate(state, run_batch, run_loop);
  if (!ok) return state.SkipWithError("a run failed");
  // The median of per-pair ratios, and each side's sentences/s over all pairs.
  state.counters["loop/batch"] = ratio;
  state.counters["batch_sent/s"] = double(pairs * batch) / batch_seconds;
  state.counters["loop_sent/s"] = double(pairs * batch) / loop_seconds;
  state.counters["padded_tokens"] = double(batch * s.padded);
}

void BM_batch_vs_loop_equal(benchmark::State& state) { batch_vs_loop(state, false); }
void BM_batch_vs_loop_ragged(benchmark::State& state) { batch_vs_loop(state, true); }
BENCHMARK(BM_batch_vs_loop_equal)->Arg(1)->Arg(8)->Arg(32)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_batch_vs_loop_ragged)->Arg(8)->Arg(32)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace normrt::bench

BENCHMARK_MAIN();
