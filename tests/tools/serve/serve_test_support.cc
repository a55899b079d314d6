#include "tests/tools/serve/serve_test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "runtime/exec/compiled_model.h"
#include "runtime/format/model_file.h"
#include "runtime/graph/graph_builder.h"
#include "tests/models/transformer/bert_fixture.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"

namespace normrt::testing {

std::string scratch_path(const std::string& name) {
  return test::scratch_dir(NORMRT_SERVE_SCRATCH_DIR, "serve-scratch") + "/" + name;
}

namespace {

std::mutex g_models_mutex;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

}  // namespace

std::string tiny_bert_path(const std::string& pooling) {
  std::lock_guard<std::mutex> lock(g_models_mutex);
  static std::map<std::string, std::string> converted;
  auto found = converted.find(pooling);
  if (found != converted.end()) return found->second;
  ConvertOptions options;
  options.config_path = std::string(NORMRT_SERVE_FIXTURE_DIR) + "/tiny_bert_gelu.config.json";
  options.weights_path = test::fixture_dir() + "/tiny_bert_gelu.safetensors";
  options.output_path = scratch_path("tiny_bert_" + pooling + ".nrmt");
  options.pooling = pooling;
  options.max_sequence_length = 16;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  converted[pooling] = options.output_path;
  return options.output_path;
}

std::shared_ptr<const Model> tiny_bert(const std::string& pooling) {
  auto model = Model::load(tiny_bert_path(pooling));
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

TorchEmbedding tiny_bert_torch_embedding() {
  auto fixture = test::read_bert_fixture(test::fixture_dir() + "/tiny_bert_gelu.expected.txt");
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  const test::ExpectedOutput& embedding = fixture.value().outputs.at("embedding@7");
  return {fixture.value().ids, embedding.values};
}

std::string tiny_vocab_path(size_t extra) {
  std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the",
                                     "cat",   "sat",   "on",    "mat",   "alpha",  "beta",
                                     "gamma", "delta", "##s",   ",",     "."};
  for (size_t i = 0; tokens.size() < 64; ++i) tokens.push_back("w" + std::to_string(i));
  for (size_t i = 0; i < extra; ++i) tokens.push_back("extra" + std::to_string(i));
  std::string text;
  for (const std::string& token : tokens) text += token + "\n";
  const std::string path = scratch_path("vocab_" + std::to_string(extra) + ".txt");
  write_file(path, text);
  return path;
}

std::string slow_embedding_model_path() {
  std::lock_guard<std::mutex> lock(g_models_mutex);
  static std::string written;
  if (!written.empty()) return written;
  constexpr int64_t kVocab = 64, kHidden = 768, kLayers = 12, kMaxSequence = 64;
  uint32_t state = 12345;  // a fixed LCG: the same weights in every run
  auto uniform = [&state](float scale) {
    state = state * 1664525u + 1013904223u;
    return scale * (static_cast<float>(state >> 8) / 8388608.0f - 1.0f);
  };
  GraphBuilder g;
  TensorId ids = g.input("input_ids", DataType::kI32, {kSequenceDim});
  std::vector<float> table(kVocab * kHidden);
  for (float& v : table) v = uniform(1.0f);
  TensorId h =
      g.node(OpType::kEmbedding, "embed", {ids, g.weight("embed.weight", {kVocab, kHidden}, table)},
             {{kSequenceDim, kHidden}});
  const float scale = 1.5f / std::sqrt(static_cast<float>(kHidden));
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    const std::string name = "layer" + std::to_string(layer);
    std::vector<float> w(kHidden * kHidden), b(kHidden);
    for (float& v : w) v = uniform(scale);
    for (float& v : b) v = uniform(0.1f);
    TensorId fc = g.node(OpType::kLinear, name + ".fc",
                         {h, g.weight(name + ".weight", {kHidden, kHidden}, w),
                          g.weight(name + ".bias", {kHidden}, b)},
                         {{kSequenceDim, kHidden}});
    h = g.node(OpType::kActivation, name + ".tanh", {fc}, {{kSequenceDim, kHidden}},
               {{"activation", std::string("tanh")}});
  }
  TensorId mean = g.node(OpType::kMeanPool, "pool.mean", {h}, {{1, kHidden}});
  TensorId embedding = g.node(OpType::kL2Normalize, "pool.normalize", {mean}, {{1, kHidden}});
  g.rename(embedding, "embedding");
  g.output(embedding);
  g.metadata("architecture", std::string("test_slow_embedding"));
  const std::string path = scratch_path("slow_embedding.nrmt");
  Status s = write_model_file(g.finish(kMaxSequence), path);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  written = path;
  return written;
}

LinearModel linear_model(float weight_scale) {
  LinearModel m;
  m.w.resize(15);
  for (size_t i = 0; i < m.w.size(); ++i) {
    m.w[i] = weight_scale * 0.25f * static_cast<float>(int(i % 7) - 3);
  }
  m.b = {0.5f, -1.0f, 0.125f};
  GraphBuilder g;
  TensorId x = g.input("x", DataType::kF32, {kSequenceDim, 5});
  TensorId shift = g.input("shift", DataType::kF32, {3});
  TensorId w = g.weight("fc.weight", {3, 5}, m.w);
  TensorId b = g.weight("fc.bias", {3}, m.b);
  TensorId fc = g.node(OpType::kLinear, "fc", {x, w, b}, {{kSequenceDim, 3}});
  TensorId y = g.node(OpType::kAdd, "shift_add", {fc, shift}, {{kSequenceDim, 3}});
  TensorId z = g.node(OpType::kActivation, "relu", {y}, {{kSequenceDim, 3}},
                      {{"activation", std::string("relu")}});
  g.rename(y, "y");
  g.rename(z, "z");
  g.output(y);
  g.output(z);
  g.metadata("architecture", std::string("test_linear"));
  auto model = compile_model(g.finish(8), ModelOptions{});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  m.model = model.value();
  return m;
}

std::vector<double> linear_reference_y(const LinearModel& m, const std::vector<float>& x,
                                       const std::vector<float>& shift) {
  const size_t rows = x.size() / 5;
  std::vector<double> y(rows * 3);
  for (size_t s = 0; s < rows; ++s) {
    for (size_t n = 0; n < 3; ++n) {
      double sum = double(m.b[n]) + double(shift[n]);
      for (size_t k = 0; k < 5; ++k) sum += double(x[s * 5 + k]) * double(m.w[n * 5 + k]);
      y[s * 3 + n] = sum;
    }
  }
  return y;
}

std::shared_ptr<const Model> accumulator_model() {
  GraphBuilder g;
  TensorId acc = g.state("acc", DataType::kF32, {1, 4});
  TensorId x = g.input("x", DataType::kF32, {1, 4});
  TensorId y = g.node(OpType::kAdd, "acc_add", {x, acc}, {{1, 4}});
  g.rename(y, "y");
  g.output(y);
  g.state_update(acc, y);
  auto model = compile_model(g.finish(1), ModelOptions{});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

nlohmann::json parse_body(const std::string& body) {
  nlohmann::json value = nlohmann::json::parse(body, nullptr, false);
  REQUIRE_MESSAGE(!value.is_discarded(), "not JSON: " << body.substr(0, 300));
  return value;
}

void check_error(const serve::Reply& reply, int status, const std::string& code,
                 const std::string& message_part) {
  INFO("body: " << reply.body);
  CHECK(reply.status == status);
  nlohmann::json body = parse_body(reply.body);
  REQUIRE(body.contains("error"));
  REQUIRE(body["error"].is_object());
  REQUIRE(body["error"]["message"].is_string());
  // OpenAI's shape: exactly message, type, param, code.
  CHECK(body["error"].size() == 4);
  CHECK(body["error"]["code"] == code);
  CHECK(body["error"]["type"] == (status >= 500 ? "server_error" : "invalid_request_error"));
  CHECK((body["error"]["param"].is_null() || body["error"]["param"].is_string()));
  const std::string message = body["error"]["message"];
  CHECK_MESSAGE(message.find(message_part) != std::string::npos,
                "expected '" << message_part << "' in '" << message << "'");
}

std::vector<float> floats_of(const nlohmann::json& array) {
  REQUIRE(array.is_array());
  std::vector<float> values;
  for (const nlohmann::json& value : array) {
    REQUIRE(value.is_number());
    values.push_back(static_cast<float>(value.get<double>()));
  }
  return values;
}

void check_same_floats(const std::vector<float>& got, const float* want, size_t count,
                       const std::string& what) {
  REQUIRE_MESSAGE(got.size() == count, what << ": " << got.size() << " values, want " << count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t a = 0, b = 0;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    if (a != b) {
      FAIL_CHECK(what << ": index " << i << " got " << got[i] << ", want " << want[i]
                      << " (bit-exact comparison)");
      return;
    }
  }
}

std::vector<float> direct_run(const std::shared_ptr<const Model>& model,
                              const std::vector<std::pair<std::string, std::vector<char>>>& inputs,
                              const std::string& output) {
  auto session = Session::create(model);
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  for (const auto& [name, bytes] : inputs) {
    Status s = session.value()->set_input(name, bytes.data(), bytes.size());
    REQUIRE_MESSAGE(s.is_ok(), s.message());
  }
  Status s = session.value()->run();
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  auto out = session.value()->output(output);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

std::vector<char> bytes_of(const std::vector<int32_t>& ids) {
  std::vector<char> bytes(ids.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), ids.data(), bytes.size());
  return bytes;
}

std::vector<char> bytes_of(const std::vector<float>& values) {
  std::vector<char> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

}  // namespace normrt::testing
