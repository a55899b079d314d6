// What the builders report for bad weights and bad configs: every weight
// problem in one message, config errors naming the field; the shared
// helpers' dtype conversion and storage types; the documented graph names.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "models/builder_support.h"
#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_builders.h"
#include "tests/models/rnn/fixture_support.h"

namespace normrt::testing {
namespace {

MemorySource fixture_weights(const std::string& name) {
  Expected<MemorySource> source =
      MemorySource::read_safetensors(fixture_path(name, ".safetensors"));
  REQUIRE_MESSAGE(source.is_ok(), source.status().message());
  return std::move(source).value();
}

RnnConfig rnn_config(const std::string& name) {
  Expected<RnnConfig> config = fixture_rnn_config(name);
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  return config.value();
}

MlpConfig mlp_config(const std::string& name) {
  Expected<MlpConfig> config = fixture_mlp_config(name);
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  return config.value();
}

void check_contains(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    CHECK_MESSAGE(message.find(part) != std::string::npos, "expected '" << part << "' in:\n"
                                                                        << message);
}

std::vector<std::byte> bytes_of(const void* data, size_t size) {
  std::vector<std::byte> out(size);
  std::memcpy(out.data(), data, size);
  return out;
}

TEST_CASE("one missing, one unknown and one mis-shaped tensor are listed in one message") {
  SUBCASE("LN-LSTM") {
    MemorySource source = fixture_weights("lstm_layer_norm");
    source.remove("layers.0.norm_c.bias");
    source.add_f32("layers.0.extra", {2}, {1, 2});
    source.reshape("layers.1.w_h.weight", {7, 28});
    Expected<Graph> graph = build_ln_lstm(rnn_config("lstm_layer_norm"), source, DataType::kF32);
    REQUIRE_FALSE(graph.is_ok());
    check_contains(
        graph.status().message(),
        {"lstm_layer_norm.safetensors: 3 problems with the weights:",
         "missing tensor 'layers.0.norm_c.bias' (expected [7])", "unknown tensor 'layers.0.extra'",
         "tensor 'layers.1.w_h.weight' has shape [7, 28], expected [28, 7]"});
  }
  SUBCASE("plain GRU (nn.GRUCell names)") {
    MemorySource source = fixture_weights("gru_plain");
    source.remove("head.bias");
    source.add_f32("layers.2.weight_ih", {1}, {0});
    source.reshape("embedding.weight", {5, 11});
    Expected<Graph> graph = build_ln_gru(rnn_config("gru_plain"), source, DataType::kBF16);
    REQUIRE_FALSE(graph.is_ok());
    check_contains(graph.status().message(),
                   {"3 problems", "missing tensor 'head.bias' (expected [3])",
                    "unknown tensor 'layers.2.weight_ih'",
                    "tensor 'embedding.weight' has shape [5, 11], expected [11, 5]"});
  }
  SUBCASE("LN-MLP") {
    MemorySource source = fixture_weights("mlp_rms_norm");
    source.remove("out.weight");
    source.add_f32("hidden.0.norm.weight", {9}, std::vector<float>(9, 1.0f));  // LN name, RMS model
    source.reshape("hidden.1.linear.bias", {});
    Expected<Graph> graph = build_ln_mlp(mlp_config("mlp_rms_norm"), source, DataType::kF32);
    REQUIRE_FALSE(graph.is_ok());
    check_contains(graph.status().message(),
                   {"3 problems", "missing tensor 'out.weight' (expected [4, 7])",
                    "unknown tensor 'hidden.0.norm.weight'",
                    "tensor 'hidden.1.linear.bias' has shape [], expected [7]"});
  }
}

TEST_CASE("a tensor of a non-float dtype or the wrong byte size is listed with its values") {
  MemorySource source = fixture_weights("lstm_draw_layer_norm");
  const int64_t ints[7] = {1, 2, 3, 4, 5, 6, 7};
  source.remove("layers.0.norm_c.weight");
  source.add("layers.0.norm_c.weight", "I64", {7}, bytes_of(ints, sizeof ints));
  source.remove("head.bias");
  source.add("head.bias", "F32", {3}, bytes_of(ints, 8));  // 8 bytes, not 12
  Expected<Graph> graph = build_ln_lstm(rnn_config("lstm_draw_layer_norm"), source, DataType::kF32);
  REQUIRE_FALSE(graph.is_ok());
  check_contains(
      graph.status().message(),
      {"2 problems",
       "tensor 'layers.0.norm_c.weight' has dtype I64, expected one of F32, F16, BF16, F64",
       "tensor 'head.bias' holds 8 bytes, expected 12 ([3] F32)"});
}

TEST_CASE("norm none expects PyTorch's cell names, a normalized cell the documented ones") {
  RnnConfig config = rnn_config("lstm_layer_norm");
  config.norm.enabled = false;
  Expected<Graph> graph = build_ln_lstm(config, fixture_weights("lstm_layer_norm"), DataType::kF32);
  REQUIRE_FALSE(graph.is_ok());
  check_contains(
      graph.status().message(),
      {"missing tensor 'layers.0.weight_ih' (expected [28, 5])",
       "missing tensor 'layers.1.bias_hh' (expected [28])",
       "unknown tensor 'layers.0.norm_h.weight'", "unknown tensor 'layers.1.w_x.weight'"});
}

TEST_CASE("bad config values name the field, before any weight is read") {
  const MemorySource source = fixture_weights("gru_rms_norm");
  RnnConfig good = rnn_config("gru_rms_norm");
  struct Case {
    const char* what;
    void (*edit)(RnnConfig&);
    const char* expected;
  };
  const Case cases[] = {
      {"hidden 0", [](RnnConfig& c) { c.hidden_size = 0; }, "hidden_size = 0 is outside [1, "},
      {"layers", [](RnnConfig& c) { c.num_layers = 65; }, "num_layers = 65 is outside [1, 64]"},
      {"vocab", [](RnnConfig& c) { c.vocab_size = -1; }, "vocab_size = -1 is outside"},
      {"eps", [](RnnConfig& c) { c.norm.eps = -1; }, "eps = -1.000000 must be finite and >= 0"},
      {"eps nan", [](RnnConfig& c) { c.norm.eps = NAN; }, "eps = nan must be finite"},
      {"eps above FLT_MAX", [](RnnConfig& c) { c.norm.eps = 1e39; }, "eps = 99999999999"},
      {"p", [](RnnConfig& c) { c.norm.kind = NormKind::kPRmsNorm, c.norm.p = 0; },
       "p = 0.000000 must be in (0, 1]"},
      {"max S", [](RnnConfig& c) { c.max_sequence_length = 0; }, "max_sequence_length = 0"},
  };
  for (const Case& c : cases) {
    INFO("case: " << c.what);
    RnnConfig config = good;
    c.edit(config);
    Expected<Graph> graph = build_ln_gru(config, source, DataType::kF32);
    REQUIRE_FALSE(graph.is_ok());
    check_contains(graph.status().message(), {std::string("config: ") + c.expected});
  }
  RnnConfig lstm = rnn_config("lstm_rms_norm");
  lstm.placement = "everywhere";
  Expected<Graph> graph = build_ln_lstm(lstm, fixture_weights("lstm_rms_norm"), DataType::kF32);
  REQUIRE_FALSE(graph.is_ok());
  check_contains(graph.status().message(),
                 {"config: placement 'everywhere' is not projections_and_cell or cell_only"});
  graph = build_ln_gru(good, source, DataType::kI32);
  REQUIRE_FALSE(graph.is_ok());
  check_contains(graph.status().message(), {"matrix dtype i32 is not f32 or bf16"});

  MlpConfig mlp = mlp_config("mlp_none");
  mlp.hidden_sizes[1] = -3;
  Expected<Graph> mlp_graph = build_ln_mlp(mlp, fixture_weights("mlp_none"), DataType::kF32);
  REQUIRE_FALSE(mlp_graph.is_ok());
  check_contains(mlp_graph.status().message(), {"config: hidden_sizes[1] = -3 is outside [1, "});
}

TEST_CASE("to_float widens F16 and BF16 exactly and rounds F64 to nearest") {
  const uint16_t f16[] = {0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x3555};
  const float f16_expected[] = {1.0f,     -2.0f,    std::ldexp(1.0f, -24),
                                65504.0f, INFINITY, 0.333251953125f};
  const uint16_t bf16[] = {0x3F80, 0xC0A0, 0x0001, 0xFF80};
  const float bf16_expected[] = {1.0f, -5.0f, std::ldexp(1.0f, -133), -INFINITY};
  const double f64[] = {0.1, -3.5, 1e-50};
  const float f64_expected[] = {0.1f, -3.5f, 0.0f};
  SourceTensor t{"t", "F16", {6}, reinterpret_cast<const std::byte*>(f16), sizeof f16};
  std::vector<float> got = to_float(t);
  REQUIRE(got.size() == 6);
  for (size_t i = 0; i < 6; ++i) CHECK_MESSAGE(got[i] == f16_expected[i], "F16 element " << i);
  t = {"t", "BF16", {4}, reinterpret_cast<const std::byte*>(bf16), sizeof bf16};
  got = to_float(t);
  REQUIRE(got.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK_MESSAGE(got[i] == bf16_expected[i], "BF16 element " << i);
  t = {"t", "F64", {3}, reinterpret_cast<const std::byte*>(f64), sizeof f64};
  got = to_float(t);
  REQUIRE(got.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK_MESSAGE(got[i] == f64_expected[i], "F64 element " << i);
}

TEST_CASE("the graph has the documented inputs, states, outputs and storage types") {
  Expected<Graph> graph =
      build_ln_lstm(rnn_config("lstm_rms_norm"), fixture_weights("lstm_rms_norm"), DataType::kBF16);
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  const Graph& g = graph.value();
  REQUIRE(g.inputs.size() == 1);
  CHECK(g.tensors[g.inputs[0]].name == "ids");
  CHECK(g.tensors[g.inputs[0]].dtype == DataType::kI32);
  REQUIRE(g.outputs.size() == 2);
  CHECK(g.tensors[g.outputs[0]].name == "h_seq");
  CHECK(g.tensors[g.outputs[1]].name == "logits");
  CHECK(g.state_updates.size() == 4);  // h and c of 2 layers
  for (const char* state : {"layers.0.h", "layers.0.c", "layers.1.h", "layers.1.c"}) {
    const TensorId id = g.find_tensor(state);
    REQUIRE_MESSAGE(id != kNoTensor, state);
    CHECK(g.tensors[id].kind == TensorKind::kState);
  }
  for (const Tensor& t : g.tensors) {
    if (t.kind != TensorKind::kWeight) continue;
    CAPTURE(t.name);
    CHECK(t.dtype == (t.shape.size() >= 2 ? DataType::kBF16 : DataType::kF32));
  }
  bool architecture = false;
  for (const Attribute& a : g.metadata)
    if (a.name == "architecture") architecture = std::get<std::string>(a.value) == "lstm";
  CHECK(architecture);
}

TEST_CASE("F64 weights give the same graph as F32 (the exported values are floats)") {
  const MemorySource f32 = fixture_weights("gru_layer_norm");
  MemorySource f64;
  for (const std::string& name : f32.names()) {
    const SourceTensor* t = f32.find(name);
    std::vector<double> wide;
    for (float v : f32_values(*t)) wide.push_back(v);
    f64.add(name, "F64", t->shape, bytes_of(wide.data(), wide.size() * 8));
  }
  const RnnConfig config = rnn_config("gru_layer_norm");
  Expected<Graph> a = build_ln_gru(config, f32, DataType::kF32);
  Expected<Graph> b = build_ln_gru(config, f64, DataType::kF32);
  REQUIRE_MESSAGE(a.is_ok(), a.status().message());
  REQUIRE_MESSAGE(b.is_ok(), b.status().message());
  REQUIRE(a.value().tensors.size() == b.value().tensors.size());
  for (size_t i = 0; i < a.value().tensors.size(); ++i) {
    const Tensor &x = a.value().tensors[i], &y = b.value().tensors[i];
    CAPTURE(x.name);
    REQUIRE(x.data.size == y.data.size);
    if (x.data.size) CHECK(std::memcmp(x.data.bytes, y.data.bytes, x.data.size) == 0);
  }
}

}  // namespace
}  // namespace normrt::testing
