// POST /v1/rerank in-process (tools/serve/rerank_scoring.h): one request of
// 32 documents of about 30 to 60 tokens (or 12 to 20) against a query, served with
// --run-batch 32, 8 or 4 (padded batches) beside --run-batch 1 (one run per pair),
// alternating in one loop (paired_timing.h) so their ratio comes from the
// same moments of a shared machine. The model: a converted one-label
// reranker with its tokenizer, named by NORMRT_RERANK_MODEL (e.g. the tiny
// fixture, or bench/make_minilm_reranker.py's MiniLM-shaped one converted by
// normrt-convert --model DIR).
//
// Counters: one_by_one/batched (the median per-pair time ratio; > 1: batches
// are faster) and documents/s of each. Run pinned:
//   NORMRT_RERANK_MODEL=x.nrmt taskset -c 1 build/release/bench/bench_rerank
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "paired_timing.h"
#include "tools/serve/model_service.h"

namespace normrt::bench {
namespace {

std::unique_ptr<serve::ModelService> service(const std::shared_ptr<const Model>& model,
                                             size_t run_batch) {
  auto tokenizer = serve::stored_tokenizer(*model);
  if (!tokenizer || !tokenizer.value()) return nullptr;
  serve::ServiceOptions options;
  options.run_batch = run_batch;
  auto made = serve::ModelService::create(model, options, *tokenizer.value());
  return made ? std::move(made).value() : nullptr;
}

// A query and 32 documents of `min_words` to `max_words` common English words
// (20 to 45: about 30 to 60 word pieces with the query and the specials).
std::string request_body(int min_words, int max_words) {
  static const char* const kWords[] = {
      "the",   "fox",     "is",    "old",    "river", "city",   "years", "lives",  "near",
      "small", "village", "where", "people", "grow",  "wheat",  "and",   "barley", "in",
      "long",  "summers", "of",    "warm",   "rain",  "forest", "quick", "brown",  "dog"};
  std::mt19937 random(7);
  nlohmann::json documents = nlohmann::json::array();
  for (int d = 0; d < 32; ++d) {
    std::string text;
    const int words = min_words + static_cast<int>(random() % (max_words - min_words + 1));
    for (int w = 0; w < words; ++w)
      text += std::string(w ? " " : "") + kWords[random() % std::size(kWords)];
    documents.push_back(text + ".");
  }
  return nlohmann::json{{"query", "how old is the brown fox that lives near the river?"},
                        {"documents", documents}}
      .dump();
}

void BM_rerank_batched_vs_one_by_one(benchmark::State& state) {
  const char* path = std::getenv("NORMRT_RERANK_MODEL");
  if (path == nullptr) return state.SkipWithError("set NORMRT_RERANK_MODEL to a reranker");
  auto model = Model::load(path);
  if (!model) return state.SkipWithError(model.status().message().c_str());
  auto batched = service(model.value(), static_cast<size_t>(state.range(2)));
  auto one_by_one = service(model.value(), 1);
  if (!batched || !one_by_one || !batched->current()->reranks())
    return state.SkipWithError("not a reranker with a stored tokenizer");
  const std::string body =
      request_body(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  bool ok = true;
  double batched_seconds = 0, one_seconds = 0;
  size_t pairs = 0;
  using Clock = std::chrono::steady_clock;
  auto run = [&](serve::ModelService& on, double& seconds) {
    const auto start = Clock::now();
    ok &= on.rerank(body).status == 200;
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
  };
  auto run_batched = [&] {
    run(*batched, batched_seconds);
    ++pairs;
  };
  auto run_one_by_one = [&] { run(*one_by_one, one_seconds); };
  const double ratio = alternate(state, run_batched, run_one_by_one);
  if (!ok) return state.SkipWithError("a request failed");
  state.counters["one_by_one/batched"] = ratio;
  state.counters["run_batch"] = double(batched->current()->run_batch());
  state.counters["batched_docs/s"] = double(pairs * 32) / batched_seconds;
  state.counters["one_by_one_docs/s"] = double(pairs * 32) / one_seconds;
}
// Args: the documents' fewest and most words, --run-batch of the batched side.
BENCHMARK(BM_rerank_batched_vs_one_by_one)
    ->Args({20, 45, 32})
    ->Args({20, 45, 8})
    ->Args({20, 45, 4})
    ->Args({1, 6, 32})
    ->Args({1, 6, 8})
    ->UseRealTime()
    ->MinTime(3.0);

}  // namespace
}  // namespace normrt::bench

BENCHMARK_MAIN();
