// bench_cnn: ConvPool-CNN-C (models/cnn) at batch 1, 32×32×3, one thread,
// and its parts (docs/cnn.md has the figures).
//
//   cnn/<norm>/{fused,unfused,fused_direct}   the whole network through a
//       Session: the builder's graph with random weights of realistic
//       magnitude, the conv fusion pass on or off, Winograd (the builder's
//       default) or direct convolutions; counter norm_share = the norm nodes'
//       share of the unfused network's time (Session profile, measured in
//       a separate profiled loop).
//   spatial/<norm>/<C>x<H>x<W>   the spatial norm kernel + leaky_relu in
//       place, on each plane size of the network: the fused network's norm
//       cost, layer by layer.
//   conv/<layer>/{blocked,plain,winograd} one oneDNN convolution: direct in
//       its preferred (blocked) layout with the reorders, direct on NCHW, or
//       Winograd (blocked) where oneDNN has it.
//   pool/<C>x<H>x<W>/{onednn,loop}  2×2 max-pool, oneDNN against a plain loop.
//
// Pin it: taskset -c 1 build/release/bench/bench_cnn
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_args.h"
#include "kernels/conv/conv_onednn.h"
#include "kernels/conv/pool_onednn.h"
#include "kernels/norm/norm_spatial.h"
#include "models/cnn/convpool_cnn_c.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"

namespace normrt::bench {
namespace {

std::vector<float> random_values(size_t count, float mean, float stddev, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

// Weights held in memory under the builder's names.
class RandomWeights : public WeightSource {
 public:
  explicit RandomWeights(const ConvPoolCnnConfig& c) {
    const bool norm = c.norm.enabled;
    const int64_t c1 = c.stage1_channels, c2 = c.stage2_channels;
    const int64_t outs[] = {c1, c1, c1, c2, c2, c2, c2, c2, c2};
    const int64_t kernels[] = {3, 3, 3, 3, 3, 3, 3, 1, 1};
    int64_t in = c.in_channels;
    uint32_t seed = 1;
    for (int i = 0; i < 9; ++i) {
      const std::string p = std::to_string(i);
      const int64_t fan_in = in * kernels[i] * kernels[i];
      add("conv." + p + ".weight", {outs[i], in, kernels[i], kernels[i]}, 0.0f,
          std::sqrt(2.0f / float(fan_in)), seed++);
      if (norm) {
        add("norm." + p + ".weight", {outs[i]}, 1.0f, 0.2f, seed++);
        add("norm." + p + ".bias", {outs[i]}, 0.0f, 0.2f, seed++);
      } else {
        add("conv." + p + ".bias", {outs[i]}, 0.0f, 0.1f, seed++);
      }
      in = outs[i];
    }
    add("dense.weight", {c.num_classes, c2}, 0.0f, 1.0f / std::sqrt(float(c2)), seed++);
    if (norm) {
      add("dense_norm.weight", {c.num_classes}, 1.0f, 0.2f, seed++);
      add("dense_norm.bias", {c.num_classes}, 0.0f, 0.2f, seed++);
    } else {
      add("dense.bias", {c.num_classes}, 0.0f, 0.1f, seed++);
    }
  }
  const SourceTensor* find(std::string_view name) const override {
    auto it = tensors_.find(std::string(name));
    return it == tensors_.end() ? nullptr : &it->second.view;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    for (const auto& [name, _] : tensors_) names.push_back(name);
    return names;
  }
  std::string description() const override { return "random weights"; }

 private:
  struct Owned {
    std::vector<float> values;
    SourceTensor view;
  };
  void add(const std::string& name, std::vector<int64_t> shape, float mean, float stddev,
           uint32_t seed) {
    size_t count = 1;
    for (int64_t d : shape) count *= size_t(d);
    Owned& t = tensors_[name];
    t.values = random_values(count, mean, stddev, seed);
    t.view = {name, "F32", shape, reinterpret_cast<const std::byte*>(t.values.data()),
              count * sizeof(float)};
  }
  std::map<std::string, Owned> tensors_;
};

ConvPoolCnnConfig cnn_config(const std::string& norm, const std::string& algorithm) {
  ConvPoolCnnConfig c;
  c.conv_algorithm = algorithm;
  Expected<NormConfig> parsed = norm_config_from_name(norm);
  if (parsed) c.norm.enabled = parsed->enabled, c.norm.kind = parsed->kind;
  if (norm == "prms_norm") c.norm.p = 1.0 / 8;  // ⌊p·10⌋ ≥ 1 for the dense norm
  return c;
}

std::shared_ptr<const Model> compile_cnn(const std::string& norm, bool fuse,
                                         const std::string& algorithm) {
  const ConvPoolCnnConfig config = cnn_config(norm, algorithm);
  RandomWeights weights(config);
  Expected<Graph> graph = build_convpool_cnn_c(config, weights);
  if (!graph) {
    std::cerr << graph.status().message() << "\n";
    std::exit(1);
  }
  ModelOptions options;
  options.fuse = fuse;
  auto model = compile_model(std::move(graph).value(), options);
  if (!model) {
    std::cerr << model.status().message() << "\n";
    std::exit(1);
  }
  return model.value();
}

void whole_network(benchmark::State& state, std::string norm, bool fuse, std::string algorithm) {
  auto model = compile_cnn(norm, fuse, algorithm);
  const std::vector<float> x = random_values(3 * 32 * 32, 0.0f, 1.0f, 99);
  for (bool profile : {true, false}) {
    SessionOptions options;
    options.profile = profile;
    auto session = Session::create(model, options);
    if (!session || !(*session)->set_input("x", x.data(), x.size() * sizeof(float))) {
      state.SkipWithError("session");
      return;
    }
    if (profile) {  // the norm nodes' share, from a short profiled loop
      for (int i = 0; i < 20; ++i) (void)(*session)->run();  // warm-up, not profiled
      (*session)->profile_reset();
      for (int i = 0; i < 100; ++i) (void)(*session)->run();
      uint64_t norm_ns = 0, total_ns = 0;
      for (const NodeProfile& node : (*session)->profile()) {
        total_ns += node.nanoseconds;
        if (!node.norm.empty() && node.op != "Conv2d" && node.op != "FusedLinear") {
          norm_ns += node.nanoseconds;
        }
      }
      state.counters["norm_share"] = total_ns ? double(norm_ns) / double(total_ns) : 0.0;
      if (std::getenv("NORMRT_BENCH_PROFILE") != nullptr) {  // per node, to stderr
        for (const NodeProfile& node : (*session)->profile()) {
          std::cerr << norm << (fuse ? " fused " : " unfused ") << node.name << " (" << node.op
                    << "): " << double(node.nanoseconds) / double(node.runs) / 1e3 << " us\n";
        }
      }
      continue;
    }
    for (auto _ : state) {
      Status ran = (*session)->run();
      if (!ran) {
        state.SkipWithError(ran.message().c_str());
        return;
      }
    }
  }
}

void spatial_norm(benchmark::State& state, std::string norm, size_t channels, size_t side) {
  NormParams params;
  params.kind = *norm_kind_from_name(norm);  // the names registered below
  params.eps = 1e-6f;
  params.p = 1.0 / 8;
  const size_t count = channels * side * side;
  const std::vector<float> source = random_values(count, 0.3f, 1.0f, 5);
  std::vector<float> y = source;
  const std::vector<float> gain = random_values(channels, 1.0f, 0.2f, 6);
  const std::vector<float> bias = random_values(channels, 0.0f, 0.2f, 7);
  NormPlanes planes;
  planes.channels = channels;
  planes.plane = side * side;
  planes.src = planes.dst = y.data();
  planes.gain = gain.data();
  planes.bias = bias.data();
  planes.activation = Activation::kLeakyRelu;
  planes.alpha = 0.1f;
  auto kernel = norm_spatial_kernel_for(*selected_isa());
  for (auto _ : state) {
    kernel(params, planes);  // in place: values stay normalized-sized from the second call on
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(count * 2 * sizeof(float)));
}

struct Layer {
  const char* name;
  size_t c, side, o, k, pad;
};
constexpr Layer kLayers[] = {
    {"conv0_3x32x32_96", 3, 32, 96, 3, 1},          {"conv1_96x32x32_96", 96, 32, 96, 3, 1},
    {"conv3_96x16x16_192", 96, 16, 192, 3, 1},      {"conv4_192x16x16_192", 192, 16, 192, 3, 1},
    {"conv6_192x8x8_192_valid", 192, 8, 192, 3, 0}, {"conv7_192x6x6_192_1x1", 192, 6, 192, 1, 0}};

void conv_layer(benchmark::State& state, Layer layer, bool blocked, bool winograd) {
  Conv2dShape s;
  s.in_channels = layer.c;
  s.height = s.width = layer.side;
  s.out_channels = layer.o;
  s.kernel_h = s.kernel_w = layer.k;
  s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = layer.pad;
  Conv2dOptions options;
  options.blocked = blocked;
  if (winograd) options.algorithm = ConvAlgorithm::kWinograd;
  const std::vector<float> w = random_values(layer.o * layer.c * layer.k * layer.k, 0, 0.1f, 8);
  auto conv = OneDnnConv2d::create(s, w.data(), options);
  if (!conv) {
    state.SkipWithError(conv.status().message().c_str());
    return;
  }
  auto context = (*conv)->make_context();
  const std::vector<float> x = random_values(layer.c * layer.side * layer.side, 0, 1, 9);
  std::vector<float> y(layer.o * s.out_height() * s.out_width());
  for (auto _ : state) {
    Status ran = (*conv)->run(**context, x.data(), nullptr, y.data());
    if (!ran) state.SkipWithError(ran.message().c_str());
  }
  state.SetLabel((*conv)->impl_name());
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(w.size()) * double(s.out_height() * s.out_width()),
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1000);
  state.counters["GFLOP/s"].value /= 1e9;
}

void max_pool(benchmark::State& state, size_t channels, size_t side, bool onednn) {
  const std::vector<float> x = random_values(channels * side * side, 0, 1, 10);
  std::vector<float> y(channels * side * side / 4);
  Pool2dShape s;
  s.channels = channels;
  s.height = s.width = side;
  s.kernel_h = s.kernel_w = s.stride_h = s.stride_w = 2;
  auto pool = OneDnnPool2d::create(s, PoolKind::kMax, 1);
  auto context = (*pool)->make_context();
  const size_t half = side / 2;
  for (auto _ : state) {
    if (onednn) {
      (void)(*pool)->run(**context, x.data(), y.data());
    } else {
      for (size_t c = 0; c < channels; ++c) {
        const float* plane = x.data() + c * side * side;
        for (size_t i = 0; i < half; ++i) {
          const float* r0 = plane + 2 * i * side;
          const float* r1 = r0 + side;
          float* out = y.data() + (c * half + i) * half;
          for (size_t j = 0; j < half; ++j) {
            out[j] =
                std::max(std::max(r0[2 * j], r0[2 * j + 1]), std::max(r1[2 * j], r1[2 * j + 1]));
          }
        }
      }
    }
    benchmark::DoNotOptimize(y.data());
  }
  if (onednn) state.SetLabel((*pool)->impl_name());
}

void register_all() {
  for (const char* norm : {"none", "rms_norm", "layer_norm", "prms_norm"}) {
    for (const char* variant : {"fused", "unfused", "fused_direct"}) {
      const std::string v = variant;
      benchmark::RegisterBenchmark((std::string("cnn/") + norm + "/" + v).c_str(), whole_network,
                                   std::string(norm), v != "unfused",
                                   std::string(v == "fused_direct" ? "direct" : "winograd"))
          ->Unit(benchmark::kMicrosecond);
    }
  }
  const size_t planes[][2] = {{96, 32}, {192, 16}, {192, 6}};
  for (const char* norm : {"rms_norm", "layer_norm", "prms_norm"}) {
    for (const auto& p : planes) {
      benchmark::RegisterBenchmark((std::string("spatial/") + norm + "/" + std::to_string(p[0]) +
                                    "x" + std::to_string(p[1]) + "x" + std::to_string(p[1]))
                                       .c_str(),
                                   spatial_norm, std::string(norm), p[0], p[1])
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const Layer& layer : kLayers) {
    for (const char* variant : {"blocked", "plain", "winograd"}) {
      const std::string v = variant;
      benchmark::RegisterBenchmark((std::string("conv/") + layer.name + "/" + v).c_str(),
                                   conv_layer, layer, v != "plain", v == "winograd")
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const auto& p : {std::pair<size_t, size_t>{96, 32}, {192, 16}}) {
    for (bool onednn : {true, false}) {
      benchmark::RegisterBenchmark(
          (std::string("pool/") + std::to_string(p.first) + "x" + std::to_string(p.second) + "x" +
           std::to_string(p.second) + (onednn ? "/onednn" : "/loop"))
              .c_str(),
          max_pool, p.first, p.second, onednn)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace normrt::bench

int main(int argc, char** argv) {
  std::vector<char*> args =
      normrt::bench::with_default_min_time(argc, argv, "--benchmark_min_time=0.3");
  int count = static_cast<int>(args.size()) - 1;
  benchmark::Initialize(&count, args.data());
  normrt::bench::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
