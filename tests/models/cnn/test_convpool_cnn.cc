// ConvPool-CNN-C end to end: each committed fixture (make_fixtures.py:
// PyTorch float64 from the equations, random weights) through convert(),
// Model::load and a Session, against the float64 logits:
//   |logit − ref| ≤ 1e-4 · max |ref|        (the logits are normalized: M ≈ 1-3)
// fused (ModelOptions::fuse, 9 Conv2d nodes absorbing norm and lrelu) and
// unfused graphs agree to float rounding, a two-thread session agrees with a
// one-thread one; the converter's errors on broken configs and weights.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/cnn/convpool_cnn_c.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "tests/support/compare.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::testing {
namespace {

std::string fixture(const std::string& name, const std::string& suffix) {
  return std::string(NORMRT_CNN_FIXTURE_DIR) + "/" + name + suffix;
}

std::string scratch(const std::string& name) {
  return test::scratch_dir(NORMRT_CNN_SCRATCH_DIR, "cnn-scratch") + "/" + name;
}

struct Io {
  std::vector<float> x;
  std::vector<double> logits;
};

Io read_io(const std::string& name) {
  auto file = SafetensorsFile::open(fixture(name, ".io.safetensors"));
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  const SourceTensor* x = (*file)->find("x");
  const SourceTensor* logits = (*file)->find("logits");
  REQUIRE((x != nullptr && logits != nullptr));
  REQUIRE((x->dtype == "F32" && logits->dtype == "F64"));
  Io io;
  io.x.resize(x->size / 4);
  std::memcpy(io.x.data(), x->data, x->size);
  io.logits.resize(logits->size / 8);
  std::memcpy(io.logits.data(), logits->data, logits->size);
  return io;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Converts the fixture with its config's conv_algorithm set to `algorithm`.
std::string convert_fixture(const std::string& name, const std::string& algorithm) {
  std::string config = read_text(fixture(name, ".json"));
  const size_t brace = config.find('{');
  REQUIRE(brace != std::string::npos);
  config.insert(brace + 1, "\"conv_algorithm\": \"" + algorithm + "\", ");
  ConvertOptions options;
  options.config_path = scratch(name + "." + algorithm + ".json");
  std::ofstream(options.config_path) << config;
  options.weights_path = fixture(name, ".safetensors");
  options.output_path = scratch(name + "." + algorithm + ".nrmt");
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary->architecture == "convpool_cnn_c");
  return options.output_path;
}

std::vector<float> run(const std::string& path, bool fuse, size_t threads, const Io& io,
                       size_t* fused_convs = nullptr, std::string* norm_column = nullptr) {
  ModelOptions model_options;
  model_options.fuse = fuse;
  auto model = Model::load(path, model_options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  if (fused_convs) *fused_convs = (*model)->passes().fused_conv_nodes;
  SessionOptions session_options;
  session_options.threads = threads;
  session_options.profile = norm_column != nullptr;
  auto session = Session::create(*model, session_options);
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  REQUIRE((*session)->set_input("x", io.x.data(), io.x.size() * sizeof(float)).is_ok());
  // Twice: the second run reuses the session's oneDNN contexts and buffers.
  for (int i = 0; i < 2; ++i) {
    Status ran = (*session)->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  }
  auto logits = (*session)->output("logits");
  REQUIRE(logits.is_ok());
  if (norm_column) {
    for (const NodeProfile& node : (*session)->profile()) {
      if (!node.norm.empty()) *norm_column = node.norm;
    }
  }
  return std::vector<float>(logits->f32(), logits->f32() + logits->elements());
}

double max_abs(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::fabs(v));
  return m;
}

// Each fixture with conv_algorithm "winograd" (the converter's default; at
// these widths oneDNN 2.6 has no Winograd kernel, so they run direct: the
// full-width test below covers Winograd) and "direct".
TEST_CASE("ConvPool-CNN-C fixtures: converted and run, within 1e-4 of PyTorch float64") {
  const std::pair<const char*, const char*> cases[] = {
      {"cnn_rms_norm", "rms_norm"},     {"cnn_layer_norm", "layer_norm"},
      {"cnn_prms_norm", "prms_norm"},   {"cnn_none", ""},
      {"cnn_rms_norm_odd", "rms_norm"}, {"cnn_rms_norm_w16", "rms_norm"}};
  for (auto [name, norm] : cases) {
    for (const char* algorithm : {"winograd", "direct"}) {
      INFO(std::string(name) << " " << std::string(algorithm));
      const Io io = read_io(name);
      const std::string path = convert_fixture(name, algorithm);
      size_t fused_convs = 0;
      std::string norm_column;
      const std::vector<float> fused = run(path, true, 1, io, &fused_convs, &norm_column);
      const std::vector<float> unfused = run(path, false, 1, io);
      const std::vector<float> threaded = run(path, true, 2, io);
      CHECK(fused_convs == 9);
      CHECK(norm_column == norm);  // the profile attributes the fused Conv2d to its norm
      REQUIRE(fused.size() == io.logits.size());
      const double m = max_abs(io.logits);
      double worst = 0, worst_fusion = 0, worst_threads = 0;
      for (size_t i = 0; i < fused.size(); ++i) {
        worst = test::worst_of(worst, std::fabs(fused[i] - io.logits[i]) / m);
        worst_fusion = test::worst_of(worst_fusion, std::fabs(double(fused[i]) - unfused[i]) / m);
        worst_threads =
            test::worst_of(worst_threads, std::fabs(double(fused[i]) - threaded[i]) / m);
      }
      MESSAGE(std::string(name) << " " << std::string(algorithm) << ": max |logit − PyTorch| / M = "
                                << worst << " (M = " << m << "); fused vs unfused " << worst_fusion
                                << ", 2 threads vs 1 " << worst_threads);
      CHECK(worst <= 1e-4);
      // The same kernels in another grouping: float rounding only.
      CHECK(worst_fusion <= 1e-6);
      CHECK(worst_threads <= 1e-5);
    }
  }
}

std::string convert_error(const std::string& config_text, const std::string& weights,
                          DataType dtype = DataType::kF32, int64_t max_seq = 0) {
  const std::string config = scratch("broken.json");
  std::ofstream(config) << config_text;
  ConvertOptions options;
  options.config_path = config;
  options.weights_path = weights;
  options.output_path = scratch("broken.nrmt");
  options.dtype = dtype;
  options.max_sequence_length = max_seq;
  auto summary = convert(options);
  return summary.is_ok() ? "converted" : summary.status().message();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("convpool_cnn_c configs and weights: errors name the key or the tensors") {
  const std::string good = read_text(fixture("cnn_rms_norm", ".json"));
  const std::string weights = fixture("cnn_rms_norm", ".safetensors");
  CHECK(convert_error(good, weights) == "converted");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  CHECK(contains(convert_error(with("\"norm\": \"rms_norm\",", ""), weights),
                 "key 'norm' is required"));
  CHECK(contains(convert_error(with("\"batch\": 1", "\"batch\": 1, \"dropout\": 0.5"), weights),
                 "unknown key(s) 'dropout'"));
  CHECK(contains(convert_error(with("\"image_size\": 32", "\"image_size\": 11"), weights),
                 "image_size = 11 is too small"));
  // The rms_norm weights as a layer_norm model: same names, so it converts;
  // as "none" the conv biases are missing and the norm tensors unknown.
  const std::string none = convert_error(with("\"rms_norm\"", "\"none\""), weights);
  CHECK(contains(none, "missing tensor 'conv.0.bias' (expected [8])"));
  CHECK(contains(none, "unknown tensor 'norm.0.weight'"));
  CHECK(contains(none, "missing tensor 'dense.bias'"));
  CHECK(contains(convert_error(with("\"stage2_channels\": 12", "\"stage2_channels\": 16"), weights),
                 "tensor 'conv.3.weight' has shape [12, 8, 3, 3], expected [16, 8, 3, 3]"));
  CHECK(contains(convert_error(good, weights, DataType::kBF16),
                 "convpool_cnn_c's convolutions run in f32 only"));
  CHECK(contains(convert_error(good, weights, DataType::kF32, 8),
                 "--max-seq does not apply to convpool_cnn_c"));
  CHECK(contains(convert_error(with("\"rms_norm\"", "\"prms_norm\", \"p\": 0.01"), weights),
                 "config: p = 0.01 leaves pRMSNorm no element to average over a plane of the last "
                 "layers (6x6) = 36 (floor(p·36) = 0): p must be at least 1/36 = 0.0277778"));
}

// Random weights of realistic magnitude under the builder's names.
class RandomWeights : public WeightSource {
 public:
  explicit RandomWeights(const ConvPoolCnnConfig& c) {
    const int64_t c1 = c.stage1_channels, c2 = c.stage2_channels;
    const int64_t outs[] = {c1, c1, c1, c2, c2, c2, c2, c2, c2};
    const int64_t kernels[] = {3, 3, 3, 3, 3, 3, 3, 1, 1};
    int64_t in = c.in_channels;
    for (int i = 0; i < 9; ++i) {
      const std::string n = std::to_string(i);
      add("conv." + n + ".weight", {outs[i], in, kernels[i], kernels[i]},
          std::sqrt(6.0f / float(in * kernels[i] * kernels[i])), 0.0f);
      add("norm." + n + ".weight", {outs[i]}, 0.3f, 1.0f);
      add("norm." + n + ".bias", {outs[i]}, 0.3f, 0.0f);
      in = outs[i];
    }
    add("dense.weight", {c.num_classes, c2}, 1.0f / std::sqrt(float(c2)), 0.0f);
    add("dense_norm.weight", {c.num_classes}, 0.3f, 1.0f);
    add("dense_norm.bias", {c.num_classes}, 0.3f, 0.0f);
  }
  const SourceTensor* find(std::string_view name) const override {
    for (const Owned& t : tensors_) {
      if (t.view.name == name) return &t.view;
    }
    return nullptr;
  }
  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    for (const Owned& t : tensors_) names.push_back(t.view.name);
    return names;
  }
  std::string description() const override { return "random weights"; }

 private:
  struct Owned {
    std::vector<float> values;
    SourceTensor view;
  };
  // Uniform in [centre − half_width, centre + half_width].
  void add(const std::string& name, std::vector<int64_t> shape, float half_width, float centre) {
    size_t count = 1;
    for (int64_t d : shape) count *= size_t(d);
    Owned& t = tensors_.emplace_back();
    t.values.resize(count);
    for (float& v : t.values)
      v = centre + half_width * (2.0f * float(rng_() % 65536) / 65535.0f - 1.0f);
    t.view = {name, "F32", shape, reinterpret_cast<const std::byte*>(t.values.data()),
              count * sizeof(float)};
  }
  std::deque<Owned> tensors_;  // stable addresses
  std::mt19937 rng_{2019};
};

std::vector<float> run_graph(Graph graph, const std::vector<float>& x) {
  auto model = compile_model(std::move(graph), ModelOptions{});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(*model);
  REQUIRE(session.is_ok());
  REQUIRE((*session)->set_input("x", x.data(), x.size() * sizeof(float)).is_ok());
  REQUIRE((*session)->run().is_ok());
  auto logits = (*session)->output("logits");
  REQUIRE(logits.is_ok());
  return std::vector<float>(logits->f32(), logits->f32() + logits->elements());
}

// The real widths (96, 192), where oneDNN runs the 3×3 "same" layers with
// Winograd F(4×4, 3×3) on AVX-512: the network agrees with its direct
// convolutions (validated against PyTorch above) to well within 1e-4.
TEST_CASE("full-width ConvPool-CNN-C: Winograd and direct convolutions agree") {
  std::vector<float> logits[2];
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> x(3 * 32 * 32);
  for (float& v : x) v = normal(rng);
  for (int winograd = 0; winograd < 2; ++winograd) {
    ConvPoolCnnConfig config;
    config.norm.kind = NormKind::kRmsNorm;
    config.conv_algorithm = winograd ? "winograd" : "direct";
    RandomWeights weights(config);
    Expected<Graph> graph = build_convpool_cnn_c(config, weights);
    REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
    logits[winograd] = run_graph(std::move(graph).value(), x);
  }
  REQUIRE(logits[0].size() == 10);
  double m = 0, worst = 0;
  for (float v : logits[0]) m = std::max(m, std::fabs(double(v)));
  for (size_t i = 0; i < 10; ++i)
    worst = test::worst_of(worst, std::fabs(double(logits[0][i]) - logits[1][i]) / m);
  MESSAGE("full width: max |Winograd − direct| / M = " << worst << " (M = " << m << ")");
  CHECK(worst <= 1e-4);
}

}  // namespace
}  // namespace normrt::testing
