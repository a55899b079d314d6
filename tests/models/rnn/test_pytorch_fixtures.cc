// Every RNN / MLP architecture × norm kind, built from the weights PyTorch
// exported (make_fixtures.py), run by a Session and compared with PyTorch's
// own outputs: the whole sequence in one run (S = 7), step by step (S = 1,
// the state carried by the session), and in two runs (3 + 4); fused and
// unfused; f32 and bf16 matrices.
//
// Tolerances, per output tensor, relative to its largest magnitude M:
//   f32 matrices vs PyTorch float32:                    |y − ref| ≤ 1e-4·M
//   bf16 matrices vs PyTorch with the same matrices
//   rounded to bf16 (make_fixtures.py bf16_matrices):   |y − ref| ≤ 1e-4·M
//   bf16 matrices vs PyTorch float32:                   |y − ref| ≤ 1e-1·M
// The last is loose because bf16 keeps 8 significant bits: each weight moves
// by up to 2^-9 relative, which shifts every pre-activation by ~2^-9·Σ|w·x|;
// a normalization divides that by the row's spread (large after a small-
// variance projection: an LN-GRU with H = 6 reached 6.8e-2), and it compounds over
// the 7 steps and the layers. It only catches gross errors (a matrix stored
// in the wrong order or as zeros); the bf16-rounded reference isolates the
// runtime's own error from the storage error and is held to 1e-4.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_builders.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/passes/quantize_weights_int8.h"
#include "tests/models/rnn/fixture_support.h"
#include "tests/support/compare.h"

namespace normrt::testing {
namespace {

const char* const kCases[] = {"lstm_layer_norm",      "lstm_rms_norm",      "lstm_prms_norm",
                              "lstm_draw_layer_norm", "lstm_draw_rms_norm", "lstm_draw_prms_norm",
                              "lstm_plain",           "gru_layer_norm",     "gru_rms_norm",
                              "gru_prms_norm",        "gru_plain",          "mlp_layer_norm",
                              "mlp_rms_norm",         "mlp_prms_norm",      "mlp_none"};

Expected<Graph> build_fixture(const std::string& name, const WeightSource& weights,
                              DataType dtype) {
  NORMRT_ASSIGN_OR_RETURN(std::string architecture, fixture_architecture(name));
  if (architecture == "mlp") {
    NORMRT_ASSIGN_OR_RETURN(MlpConfig config, fixture_mlp_config(name));
    return build_ln_mlp(config, weights, dtype);
  }
  NORMRT_ASSIGN_OR_RETURN(RnnConfig config, fixture_rnn_config(name));
  return architecture == "lstm" ? build_ln_lstm(config, weights, dtype)
                                : build_ln_gru(config, weights, dtype);
}

// The rows [first, first + count) of a row-major tensor with `cols` columns.
template <class T>
std::vector<T> rows(const std::vector<T>& values, size_t cols, size_t first, size_t count) {
  return std::vector<T>(values.begin() + first * cols, values.begin() + (first + count) * cols);
}

struct Io {
  std::string input_name;  // "x" or "ids"
  std::vector<float> x;
  std::vector<int32_t> ids;
  size_t steps = 0, input_cols = 1;
  // Output name → (expected values, columns).
  std::vector<std::pair<std::string, std::vector<float>>> expected;
};

Io read_io(const std::string& name, const std::string& reference_suffix) {
  Expected<MemorySource> file =
      MemorySource::read_safetensors(fixture_path(name, ".io.safetensors"));
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  Io io;
  if (const SourceTensor* ids = file.value().find("ids")) {
    io.input_name = "ids";
    io.ids = i32_values(*ids);
    io.steps = io.ids.size();
  } else {
    const SourceTensor* x = file.value().find("x");
    REQUIRE(x != nullptr);
    io.input_name = "x";
    io.x = f32_values(*x);
    io.steps = static_cast<size_t>(x->shape[0]);
    io.input_cols = static_cast<size_t>(x->shape[1]);
  }
  for (const char* output : {"h_seq", "logits"}) {
    if (const SourceTensor* t = file.value().find(std::string(output) + reference_suffix))
      io.expected.push_back({output, f32_values(*t)});
  }
  REQUIRE(!io.expected.empty());
  return io;
}

// Runs rows [first, first + count) of the input; compares the outputs with
// the same rows of the reference. Returns the worst |y − ref| / M.
double run_and_compare(Session& session, const Io& io, size_t first, size_t count, double tolerance,
                       const std::string& what) {
  Status bound = io.input_name == "ids"
                     ? session.set_input("ids", io.ids.data() + first, count * sizeof(int32_t))
                     : session.set_input("x", io.x.data() + first * io.input_cols,
                                         count * io.input_cols * sizeof(float));
  REQUIRE_MESSAGE(bound.is_ok(), bound.message());
  Status ran = session.run();
  REQUIRE_MESSAGE(ran.is_ok(), what << ": " << ran.message());
  double worst = 0;
  for (const auto& [output, reference] : io.expected) {
    Expected<TensorRef> y = session.output(output);
    REQUIRE_MESSAGE(y.is_ok(), y.status().message());
    const size_t cols = reference.size() / io.steps;
    REQUIRE(y.value().elements() == count * cols);
    double magnitude = 0;
    for (float v : reference) magnitude = std::max(magnitude, std::fabs(double(v)));
    const std::vector<float> ref = rows(reference, cols, first, count);
    const std::vector<double> want(ref.begin(), ref.end());
    const test::Comparison c =
        test::compare(y.value().f32(), want.data(), want.size(), tolerance * magnitude, 0);
    worst = std::max(worst, c.worst / magnitude);
    if (!c.ok()) {  // also a NaN
      FAIL_CHECK(what << ": " << output << " (rows " << first << ".., " << cols
                      << " per row) against PyTorch, bound " << tolerance << " * max|ref| "
                      << magnitude << ": " << c.first_failure);
      return worst;
    }
  }
  return worst;
}

constexpr double kInt8Tolerance = 8e-2;

// One case with one matrix dtype and fusion setting against one reference.
double check_case(const std::string& name, DataType dtype, bool fuse,
                  const std::string& reference_suffix, double tolerance) {
  const std::string what = name + " (" + data_type_name(dtype) + (fuse ? ", fused" : ", unfused") +
                           " vs PyTorch" + reference_suffix + ")";
  Expected<MemorySource> weights =
      MemorySource::read_safetensors(fixture_path(name, ".safetensors"));
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  // int8: the f32 graph with its matrices quantized, as normrt-convert --dtype int8 does.
  Expected<Graph> graph =
      build_fixture(name, weights.value(), dtype == DataType::kInt8 ? DataType::kF32 : dtype);
  REQUIRE_MESSAGE(graph.is_ok(), what << ": " << graph.status().message());
  if (dtype == DataType::kInt8) {
    Expected<Int8Report> report = quantize_weights_int8(graph.value(), {});
    REQUIRE_MESSAGE(report.is_ok(), report.status().message());
    CHECK_MESSAGE(report->quantized > 0, what);
  }
  ModelOptions options;
  options.fuse = fuse;
  options.fold_norm_affine = fuse;
  Expected<std::shared_ptr<const Model>> model = compile_model(std::move(graph).value(), options);
  REQUIRE_MESSAGE(model.is_ok(), what << ": " << model.status().message());
  if (fuse && name.rfind("mlp_", 0) == 0 && name != "mlp_none")
    CHECK_MESSAGE(model.value()->passes().fused_linear_nodes > 0, what);
  Expected<std::unique_ptr<Session>> session = Session::create(model.value());
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  Session& s = *session.value();
  const Io io = read_io(name, reference_suffix);

  double worst = run_and_compare(s, io, 0, io.steps, tolerance, what + " whole sequence");
  s.reset();
  for (size_t t = 0; t < io.steps; ++t)
    worst = std::max(worst,
                     run_and_compare(s, io, t, 1, tolerance, what + " step " + std::to_string(t)));
  s.reset();
  worst = std::max(worst, run_and_compare(s, io, 0, 3, tolerance, what + " rows 0-2"));
  worst = std::max(worst, run_and_compare(s, io, 3, io.steps - 3, tolerance, what + " rows 3-6"));
  return worst;
}

TEST_CASE("every architecture and norm kind matches PyTorch, whole, stepwise and split runs") {
  for (const char* name : kCases) {
    INFO("case: " << name);
    double f32 = 0, bf16 = 0, bf16_vs_f32 = 0, int8 = 0;
    for (bool fuse : {true, false}) {
      f32 = std::max(f32, check_case(name, DataType::kF32, fuse, "", 1e-4));
      bf16 = std::max(bf16, check_case(name, DataType::kBF16, fuse, ".bf16", 1e-4));
      bf16_vs_f32 = std::max(bf16_vs_f32, check_case(name, DataType::kBF16, fuse, "", 1e-1));
      // int8 matrices against PyTorch float32: quantization error (weights
      // per row, x per row at run time); measured at most 3.6e-2 of max|ref|
      // over these fixtures.
      int8 = std::max(int8, check_case(name, DataType::kInt8, fuse, "", kInt8Tolerance));
    }
    std::printf(
        "%-22s worst |y - ref| / max|ref|: f32 %.2e, bf16 %.2e (vs f32 PyTorch %.2e), int8 %.2e\n",
        name, f32, bf16, bf16_vs_f32, int8);
  }
}

}  // namespace
}  // namespace normrt::testing
