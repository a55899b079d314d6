// bench_executor: what the runtime adds on top of its kernels at batch 1.
//
//   executor_chain/N    a graph of N tiny nodes (ReLU over 16 floats) run by a
//                       Session, against
//   direct_chain/N      the same N ReLU kernel calls in a plain loop.
//   → per-node overhead = (executor − direct) / N; target < 50 ns.
//
//   prenorm_qkv/<norm>/d/{folded,unfolded}   norm(x)·g + β feeding the three
//                       Q/K/V linears of a pre-norm block, S = 1, with and
//                       without the folding pass (fusion off in both, so the
//                       norm stays a node of its own).
//   blocks/d/{fused,unfused}  the mixed post-/pre-norm blocks
//                       (models/samples, as in the runtime tests), S = 1,
//                       fusion and folding on vs both off.
//
// Weights are random (no zero pages, no subnormals); single thread.
#include <benchmark/benchmark.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_args.h"
#include "bench/result_collector.h"
#include "kernels/activation/activation.h"
#include "models/samples/mixed_blocks.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"

namespace normrt::bench {
namespace {

constexpr const char* kDefaultMinTimeFlag = "--benchmark_min_time=0.2";
constexpr int64_t kChainWidth = 16;

std::shared_ptr<const Model> compile_or_die(Graph graph, const ModelOptions& options) {
  auto model = compile_model(std::move(graph), options);
  if (!model) {
    std::cerr << model.status().message() << "\n";
    std::exit(1);
  }
  return model.value();
}

Graph relu_chain(int nodes) {
  GraphBuilder b;
  TensorId x = b.input("x", DataType::kF32, {1, kChainWidth});
  for (int i = 0; i < nodes; ++i) {
    x = b.node(OpType::kActivation, "relu" + std::to_string(i), {x}, {{1, kChainWidth}},
               {{"activation", std::string("relu")}});
  }
  b.rename(x, "out");
  b.output(x);
  return b.finish(1);
}

// Runs `model` with input "x" = `x` in the benchmark loop.
void run_session(benchmark::State& state, std::shared_ptr<const Model> model,
                 const std::vector<float>& x) {
  auto session = Session::create(model);
  if (!session) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    Status bound = session.value()->set_input("x", x.data(), x.size() * sizeof(float));
    Status ran = session.value()->run();
    if (!bound || !ran) {
      state.SkipWithError((bound ? ran : bound).message().c_str());
      return;
    }
    benchmark::DoNotOptimize(session.value()->output("out")->data);
  }
}

void executor_chain(benchmark::State& state, int nodes) {
  auto model = compile_or_die(relu_chain(nodes), {});
  run_session(state, model, samples::random_values(kChainWidth, 1.0f, 1));
  state.counters["ns_per_node"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void direct_chain(benchmark::State& state, int nodes) {
  auto kernel = selected_activation_kernel();
  std::vector<float> x = samples::random_values(kChainWidth, 1.0f, 1);
  std::vector<float> a(kChainWidth), b(kChainWidth);
  for (auto _ : state) {
    kernel.value()(Activation::kRelu, 0.0f, x.data(), a.data(), kChainWidth);
    for (int i = 1; i < nodes; ++i) {
      kernel.value()(Activation::kRelu, 0.0f, a.data(), b.data(), kChainWidth);
      std::swap(a, b);
    }
    benchmark::DoNotOptimize(a.data());
  }
  state.counters["ns_per_node"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

// x → norm(x)·g + β → q, k, v; out = q + k + v (so all three are needed).
Graph prenorm_qkv(OpType norm, int64_t d) {
  GraphBuilder b;
  TensorId x = b.input("x", DataType::kF32, {1, d});
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  TensorId gain = b.weight("gain", {d}, samples::random_values(d, 0.5f, 2));
  TensorId beta = norm == OpType::kLayerNorm
                      ? b.weight("beta", {d}, samples::random_values(d, 0.1f, 3))
                      : kNoTensor;
  std::vector<Attribute> attributes;
  if (norm == OpType::kPRmsNorm) attributes.push_back({"p", 0.0625});
  TensorId n = b.node(norm, "norm", {x, gain, beta}, {{1, d}}, attributes);
  TensorId sum = kNoTensor;
  for (const char* name : {"q", "k", "v"}) {
    TensorId w =
        b.weight(std::string(name) + ".w", {d, d}, samples::random_values(d * d, scale, name[0]));
    TensorId y = b.node(OpType::kLinear, name, {n, w}, {{1, d}});
    sum =
        sum == kNoTensor ? y : b.node(OpType::kAdd, std::string("sum_") + name, {sum, y}, {{1, d}});
  }
  b.rename(sum, "out");
  b.output(sum);
  return b.finish(1);
}

void prenorm(benchmark::State& state, OpType norm, int64_t d, bool folded) {
  ModelOptions options;
  options.fuse = false;
  options.fold_norm_affine = folded;
  run_session(state, compile_or_die(prenorm_qkv(norm, d), options),
              samples::random_values(d, 1.0f, 4));
}

void blocks(benchmark::State& state, int64_t d, bool fused) {
  ModelOptions options;
  options.fuse = fused;
  options.fold_norm_affine = fused;
  auto weights = samples::mixed_blocks_weights(static_cast<size_t>(d), 5);
  run_session(state, compile_or_die(samples::mixed_blocks(weights, 1, false), options),
              samples::random_values(d, 1.0f, 6));
}

// Names carry the parameters (the summary looks benchmarks up by name).
void register_benchmarks() {
  for (int nodes : {10, 100, 1000}) {
    std::string suffix = "/" + std::to_string(nodes);
    benchmark::RegisterBenchmark(("executor_chain" + suffix).c_str(), executor_chain, nodes);
    benchmark::RegisterBenchmark(("direct_chain" + suffix).c_str(), direct_chain, nodes);
  }
  const std::pair<const char*, OpType> norms[] = {{"layer_norm", OpType::kLayerNorm},
                                                  {"rms_norm", OpType::kRmsNorm},
                                                  {"prms_norm", OpType::kPRmsNorm}};
  for (int64_t d : {256, 768}) {
    for (const auto& [name, op] : norms) {
      for (bool folded : {true, false}) {
        std::string label = std::string("prenorm_qkv/") + name +
                            (folded ? "/folded/" : "/unfolded/") + std::to_string(d);
        benchmark::RegisterBenchmark(label.c_str(), prenorm, op, d, folded);
      }
    }
    for (bool fused : {true, false}) {
      std::string label =
          std::string(fused ? "blocks/fused/" : "blocks/unfused/") + std::to_string(d);
      benchmark::RegisterBenchmark(label.c_str(), blocks, d, fused);
    }
  }
}

void print_ratio(std::ostream& out, const std::map<std::string, MeasuredTime>& times,
                 const std::string& numerator, const std::string& denominator, const char* label) {
  auto a = times.find(numerator), b = times.find(denominator);
  if (a == times.end() || b == times.end()) return;
  out << "  " << label << ": " << numerator << " / " << denominator << " = "
      << a->second.cpu_ns / b->second.cpu_ns << "\n";
}

void print_summary(const ResultCollector& collector, std::ostream& out) {
  auto times = collector.times();
  out << "\nPer-node executor overhead (target < 50 ns):\n";
  for (int nodes : {10, 100, 1000}) {
    std::string suffix = "/" + std::to_string(nodes);
    auto executor = times.find("executor_chain" + suffix),
         direct = times.find("direct_chain" + suffix);
    if (executor == times.end() || direct == times.end()) continue;
    double overhead = (executor->second.cpu_ns - direct->second.cpu_ns) / nodes;
    out << "  " << nodes << " nodes: executor " << executor->second.cpu_ns / nodes
        << " ns/node, direct calls " << direct->second.cpu_ns / nodes << " ns/node, overhead "
        << overhead << " ns/node " << (overhead < 50 ? "pass" : "FAIL") << "\n";
  }
  out << "Folding pre-norm gains into Q/K/V (time folded / unfolded; < 1 saves):\n";
  for (const char* norm : {"layer_norm", "rms_norm", "prms_norm"}) {
    for (const char* d : {"256", "768"}) {
      std::string base = std::string("prenorm_qkv/") + norm;
      print_ratio(out, times, base + "/folded/" + d, base + "/unfolded/" + d, "fold");
    }
  }
  out << "Fusion + folding on the mixed blocks (fused / unfused):\n";
  for (const char* d : {"256", "768"}) {
    print_ratio(out, times, std::string("blocks/fused/") + d, std::string("blocks/unfused/") + d,
                "fuse");
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
  ResultCollector collector(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector, collector.display_is_console() ? std::cout : std::cerr);
  benchmark::Shutdown();
  return 0;
}
