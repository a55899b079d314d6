// Handwriting generation (Graves 2013 with LN-LSTMs): the committed fixtures
// of make_fixtures.py (PyTorch float64 from the equations; tiny random
// weights; the reference sampler reference_sampler.py, written from the
// sampler's specification in docs/handwriting.md):
//   - MixtureSample reproduces the Python reference sampler bit for bit for
//     100 steps (random mixtures, a seed with all 64 bits in use);
//   - the "predict" graph: params within 1e-4 · max|ref| of float64, the
//     state carried over split runs, fused ≡ unfused;
//   - the "sample" graph: 100 generated points, each fed back, against the
//     float64 model with the reference sampler: the same end-of-stroke bits,
//     offsets and mixture parameters within 1e-4 · max|ref|; reset() replays
//     the same points bit for bit;
//   - converter errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "tests/models/seed_fixture_support.h"
#include "tests/support/compare.h"
#include "tests/support/scratch_dir.h"

namespace normrt::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(NORMRT_HANDWRITING_FIXTURE_DIR) + "/" + name;
}
std::string scratch_dir() {
  return test::scratch_dir(NORMRT_HANDWRITING_SCRATCH_DIR, "handwriting-scratch");
}
std::string scratch(const std::string& name) { return scratch_dir() + "/" + name; }

const char* const kNorms[] = {"layer_norm", "rms_norm", "prms_norm", "none"};

// The fixture's config with "graph" set to `graph`, converted.
std::string convert_as(const std::string& name, const std::string& graph) {
  std::string config = read_text(fixture(name + ".json"));
  const std::string from = "\"graph\": \"sample\"";
  const size_t at = config.find(from);
  REQUIRE(at != std::string::npos);
  config.replace(at, from.size(), "\"graph\": \"" + graph + "\"");
  const std::string config_path = scratch(name + "." + graph + ".json");
  std::ofstream(config_path) << config;
  const std::string model = scratch(name + "." + graph + ".nrmt");
  CHECK(convert_fixture(config_path, fixture(name + ".safetensors"), model) == "handwriting");
  return model;
}

std::vector<double> rows(const IoTensor& t, size_t first, size_t count, size_t width) {
  return std::vector<double>(t.values.begin() + first * width,
                             t.values.begin() + (first + count) * width);
}

}  // namespace

TEST_CASE("MixtureSample matches the Python reference sampler bit for bit for 100 steps") {
  const auto io = read_io(fixture("sampler.io.safetensors"));
  const IoTensor& params = io.at("params");
  const IoTensor& points = io.at("points");
  const int64_t m = io.at("components").i32[0];
  const uint64_t seed =
      uint64_t(uint32_t(io.at("seed").i32[0])) | uint64_t(uint32_t(io.at("seed").i32[1])) << 32;
  const int64_t width = 1 + 6 * m;
  GraphBuilder b;
  const TensorId in = b.input("params", DataType::kF32, {1, width});
  const TensorId step = b.state("step", DataType::kI32, {1});
  b.node(OpType::kMixtureSample, "sample", {in, step}, {{1, 3}, {1}},
         {{"components", m}, {"seed", static_cast<int64_t>(seed)}});
  const TensorId point = b.last_outputs()[0];
  const TensorId next = b.last_outputs()[1];
  b.graph().tensors[next].dtype = DataType::kI32;
  b.rename(point, "point");
  b.state_update(step, next);
  b.output(point);
  auto model = compile_model(b.finish(1), ModelOptions());
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(*model);
  REQUIRE(session.is_ok());
  size_t mismatches = 0;
  for (size_t t = 0; t < 100; ++t) {
    const float* row = params.f32.data() + t * width;
    REQUIRE((*session)->set_input("params", row, width * sizeof(float)).is_ok());
    REQUIRE((*session)->run().is_ok());
    const std::vector<float> got = output_values(**session, "point");
    const float* want = points.f32.data() + t * 3;
    if (std::memcmp(got.data(), want, 3 * sizeof(float)) != 0 && mismatches++ < 5) {
      FAIL_CHECK("step " << t << ": (" << got[0] << ", " << got[1] << ", " << got[2]
                         << ") vs the reference's (" << want[0] << ", " << want[1] << ", "
                         << want[2] << ")");
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("handwriting predict graph: Graves' mixture parameters within 1e-4 of float64") {
  for (const char* norm : kNorms) {
    const std::string name = std::string("handwriting_") + norm;
    INFO(name);
    const auto io = read_io(fixture(name + ".io.safetensors"));
    const IoTensor& x = io.at("x");
    const IoTensor& ref = io.at("params");
    const size_t s = x.shape[0], width = ref.shape[1];
    const std::string path = convert_as(name, "predict");
    std::vector<float> outputs[2];
    for (bool fuse : {true, false}) {
      auto session = Session::create(load_model(path, fuse));
      REQUIRE(session.is_ok());
      REQUIRE((*session)->set_input("x", x.f32.data(), x.f32.size() * 4).is_ok());
      REQUIRE((*session)->run().is_ok());
      const std::vector<float> whole = output_values(**session, "params");
      const double err = relative_error(whole, ref.values);
      MESSAGE(name << std::string(fuse ? " fused" : " unfused") << ": params " << err
                   << " of max|ref|");
      CHECK(err <= 1e-4);
      // The same sequence in two runs (3 + rest): the LSTM state carries over.
      (*session)->reset();
      std::vector<float> split;
      for (auto [first, count] : {std::pair<size_t, size_t>{0, 3}, {3, s - 3}}) {
        REQUIRE((*session)->set_input("x", x.f32.data() + first * 3, count * 12).is_ok());
        REQUIRE((*session)->run().is_ok());
        const std::vector<float> part = output_values(**session, "params");
        split.insert(split.end(), part.begin(), part.end());
      }
      CHECK(relative_difference(split, whole) <= 1e-6);
      CHECK(relative_error(split, rows(ref, 0, s, width)) <= 1e-4);
      outputs[fuse ? 0 : 1] = whole;
    }
    CHECK(relative_difference(outputs[0], outputs[1]) <= 1e-6);
  }
}

TEST_CASE(
    "handwriting sample graph: 100 points fed back agree with float64 + the reference sampler") {
  for (const char* norm : kNorms) {
    const std::string name = std::string("handwriting_") + norm;
    INFO(name);
    const auto io = read_io(fixture(name + ".io.safetensors"));
    const IoTensor& ref_points = io.at("generated_points");
    const IoTensor& ref_params = io.at("generated_params");
    const float bias = io.at("bias").f32[0];
    const size_t steps = ref_points.shape[0], width = ref_params.shape[1];
    const std::string path = convert_as(name, "sample");
    auto session = Session::create(load_model(path, true));
    REQUIRE(session.is_ok());
    REQUIRE((*session)->set_input("bias", &bias, sizeof(float)).is_ok());
    std::vector<float> points, params, replay;
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t t = 0; t < steps; ++t) {
        REQUIRE((*session)->run().is_ok());
        const std::vector<float> point = output_values(**session, "point");
        if (pass == 0) {
          points.insert(points.end(), point.begin(), point.end());
          const std::vector<float> p = output_values(**session, "params");
          params.insert(params.end(), p.begin(), p.end());
        } else {
          replay.insert(replay.end(), point.begin(), point.end());
        }
      }
      (*session)->reset();
    }
    CHECK(replay == points);
    double max_ref = 0, worst = 0;
    size_t eos_mismatches = 0;
    for (size_t i = 0; i < ref_points.values.size(); ++i) {
      if (i % 3 == 2) {
        eos_mismatches += points[i] != ref_points.f32[i];
        continue;
      }
      max_ref = std::max(max_ref, std::fabs(ref_points.values[i]));
      worst = test::worst_of(worst, std::fabs(points[i] - ref_points.values[i]));
    }
    const double params_err = relative_error(params, ref_params.values);
    for (size_t t = 0; t < steps; ++t) {
      double d = 0;
      for (size_t j = 0; j < width; ++j)
        d = std::max(d, std::fabs(params[t * width + j] - ref_params.values[t * width + j]));
      if (d > 1e-5) {
        MESSAGE("first step off: " << t << " by " << d << " point " << points[3 * t] << " "
                                   << points[3 * t + 1] << " ref " << ref_points.f32[3 * t] << " "
                                   << ref_points.f32[3 * t + 1]);
        break;
      }
    }
    MESSAGE(name << ": offsets " << worst / max_ref << " of max|ref|, params " << params_err
                 << ", end-of-stroke mismatches " << eos_mismatches << " over " << steps
                 << " steps");
    CHECK(eos_mismatches == 0);
    CHECK(worst <= 1e-4 * max_ref);
    CHECK(params_err <= 1e-4);
    (void)width;
  }
}

TEST_CASE("handwriting configs and weights: errors name the key or the tensors") {
  const std::string good = read_text(fixture("handwriting_layer_norm.json"));
  const std::string weights = fixture("handwriting_layer_norm.safetensors");
  const std::string dir = scratch_dir();
  CHECK(convert_error(good, weights, dir) == "converted");
  auto with = [&](const std::string& from, const std::string& to) {
    return replace_once(good, from, to);
  };
  CHECK(contains(convert_error(with("\"graph\": \"sample\"", "\"graph\": \"beam\""), weights, dir),
                 "graph 'beam' is not predict or sample"));
  CHECK(contains(convert_error(with("\"components\": 4", "\"components\": 5"), weights, dir),
                 "tensor 'head.weight' has shape [25, 24], expected [31, 24]"));
  CHECK(contains(convert_error(with("\"num_layers\": 3", "\"num_layers\": 2"), weights, dir),
                 "unknown tensor 'layers.2.bias'"));
  CHECK(
      contains(convert_error(with("\"num_layers\"", "\"skip_connections\": false, \"num_layers\""),
                             weights, dir),
               "tensor 'layers.1.w_x.weight' has shape [32, 11], expected [32, 8]"));
  CHECK(contains(convert_error(with("\"layer_norm\"", "\"rms_norm\""), weights, dir),
                 "missing tensor 'layers.0.norm_x.scale'"));
  CHECK(contains(
      convert_error(with("\"hidden_size\"", "\"window\": 10, \"hidden_size\""), weights, dir),
      "unknown key(s) 'window'"));
  // pRMSNorm over 8 columns needs p ≥ 1/8.
  CHECK(contains(convert_error(with("\"layer_norm\"", "\"prms_norm\", \"p\": 0.1"), weights, dir),
                 "config: p = 0.1 leaves pRMSNorm no element to average over the cell's columns = "
                 "8 (floor(p·8) = 0): p must be at least 1/8 = 0.125"));
}

}  // namespace normrt::testing
