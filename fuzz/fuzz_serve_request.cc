// libFuzzer target: the input bytes as a normrt-serve request — a body for
// POST /v1/run (JSON → checked input tensors → a run) on a two-input linear
// model, a body for POST /v1/embeddings (OpenAI's API: texts or token ids →
// runs → floats or base64, "dimensions") on a small embedding model, a body
// for POST /v2/models/normrt/infer (KServe v2: JSON tensors, BYTES texts,
// and the binary extension with the JSON header ending at the last '}') on
// both, and a request head for the connection triage (request_head.h: head
// end, method, path, Content-Length and Transfer-Encoding framing). Beyond
// "no crash": every reply has the documented shape (an OpenAI error
// {"error": {"message", "type", "param", "code"}}, or under /v2
// {"error": "<message>"}, with an HTTP error status; or a 200 whose tensors
// have the model's shapes and finite values); an embedding has unit norm,
// at most max_sequence_length tokens ("truncated" only at that length) and
// as many values as asked; a complete head lies inside the input and a
// framed body is within the limit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "tools/serve/model_service.h"
#include "tools/serve/request_head.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace {

using namespace normrt;
using nlohmann::json;

constexpr int64_t kMaxSequence = 8;
constexpr int64_t kVocab = 32, kWidth = 8;
constexpr size_t kMaxBody = 1 << 16;

std::shared_ptr<const Model> compile(GraphBuilder& g) {
  auto model = compile_model(g.finish(kMaxSequence), ModelOptions{});
  FUZZ_CHECK(model.is_ok(), "%s", model.status().message().c_str());
  return model.value();
}

// x f32 [S, 5], shift f32 [3] → y = x·Wᵀ + b + shift [S, 3], z = relu(y).
std::shared_ptr<const Model> linear_model() {
  std::vector<float> w(15), b = {0.5f, -1.0f, 0.125f};
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(int(i % 7) - 3);
  GraphBuilder g;
  TensorId x = g.input("x", DataType::kF32, {kSequenceDim, 5});
  TensorId shift = g.input("shift", DataType::kF32, {3});
  TensorId fc = g.node(OpType::kLinear, "fc", {x, g.weight("w", {3, 5}, w), g.weight("b", {3}, b)},
                       {{kSequenceDim, 3}});
  TensorId y = g.node(OpType::kAdd, "add", {fc, shift}, {{kSequenceDim, 3}});
  TensorId z = g.node(OpType::kActivation, "relu", {y}, {{kSequenceDim, 3}},
                      {{"activation", std::string("relu")}});
  g.rename(y, "y");
  g.rename(z, "z");
  g.output(y);
  g.output(z);
  return compile(g);
}

// ids i32 [S] → Embedding [32, 8] → mean → L2-normalized "embedding" [1, 8].
std::shared_ptr<const Model> embedding_model() {
  std::vector<float> table(kVocab * kWidth);
  for (size_t i = 0; i < table.size(); ++i) {
    table[i] = static_cast<float>(int((i * 7) % 13) - 6) / 6.0f + 0.01f;
  }
  GraphBuilder g;
  TensorId ids = g.input("input_ids", DataType::kI32, {kSequenceDim});
  TensorId h = g.node(OpType::kEmbedding, "embed",
                      {ids, g.weight("table", {kVocab, kWidth}, table)}, {{kSequenceDim, kWidth}});
  TensorId mean = g.node(OpType::kMeanPool, "mean", {h}, {{1, kWidth}});
  TensorId out = g.node(OpType::kL2Normalize, "normalize", {mean}, {{1, kWidth}});
  g.rename(out, "embedding");
  g.output(out);
  return compile(g);
}

serve::TextTokenizer tokenizer() {
  std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the",
                                     "cat",   "sat",   "on",    "mat",   "##s",    ",",
                                     ".",     "a",     "é",     "日"};
  while (tokens.size() < static_cast<size_t>(kVocab)) {
    tokens.push_back("w" + std::to_string(tokens.size()));
  }
  auto vocab = text::WordPieceVocab::from_tokens(tokens, "fuzz vocabulary");
  FUZZ_CHECK(vocab.is_ok(), "%s", vocab.status().message().c_str());
  text::BertTokenizerOptions options;
  options.max_length = kMaxSequence + 1;  // as serve::load_tokenizer() makes it
  auto made = text::BertTokenizer::create(std::move(vocab).value(), options);
  FUZZ_CHECK(made.is_ok(), "%s", made.status().message().c_str());
  return serve::TextTokenizer::wordpiece(std::move(made).value());
}

struct Services {
  std::unique_ptr<serve::ModelService> run, embed;
};

Services& services() {
  static Services s = [] {
    Services made;
    serve::ServiceOptions options;
    options.max_embedding_inputs = 16;
    options.allow_dimensions = true;  // "dimensions" truncates: that path is fuzzed too
    auto run = serve::ModelService::create(linear_model(), options);
    FUZZ_CHECK(run.is_ok(), "%s", run.status().message().c_str());
    auto embed = serve::ModelService::create(embedding_model(), options, tokenizer());
    FUZZ_CHECK(embed.is_ok(), "%s", embed.status().message().c_str());
    made.run = std::move(run).value();
    made.embed = std::move(embed).value();
    return made;
  }();
  return s;
}

// The reply is one JSON object: an error of the documented shape, or a 200.
json check_reply_shape(const serve::Reply& reply) {
  json body = json::parse(reply.body, nullptr, false);
  FUZZ_CHECK(!body.is_discarded() && body.is_object(), "reply %d is not a JSON object: %.200s",
             reply.status, reply.body.c_str());
  if (reply.status == 200) return body;
  FUZZ_CHECK(
      reply.status == 400 || reply.status == 404 || reply.status == 413 || reply.status == 422,
      "unexpected status %d: %.200s", reply.status, reply.body.c_str());
  const json& error = body.contains("error") ? body["error"] : json();
  FUZZ_CHECK(body.size() == 1 && error.is_object() && error.size() == 4 &&
                 error["message"].is_string() && error["type"].is_string() &&
                 (error["param"].is_null() || error["param"].is_string()) &&
                 error["code"].is_string() && reply.code == error["code"],
             "bad error body: %.200s", reply.body.c_str());
  return body;
}

// A /v2 reply: {"error": "<message>"} with an error status, or a 200 whose
// outputs have datatypes, shapes and as many values (or binary bytes) as
// the shapes say.
void check_v2_reply(const serve::Reply& reply) {
  if (reply.status != 200) {
    const json body = json::parse(reply.body, nullptr, false);
    FUZZ_CHECK(reply.status == 400 || reply.status == 404 || reply.status == 422,
               "unexpected v2 status %d: %.200s", reply.status, reply.body.c_str());
    FUZZ_CHECK(!body.is_discarded() && body.is_object() && body.size() == 1 &&
                   body.contains("error") && body["error"].is_string(),
               "bad v2 error body: %.200s", reply.body.c_str());
    return;
  }
  size_t header = reply.body.size();
  for (const auto& [name, value] : reply.headers) {
    if (name == "Inference-Header-Content-Length") header = std::stoul(value);
  }
  FUZZ_CHECK(header <= reply.body.size(), "header length %zu of %zu", header, reply.body.size());
  const json body = json::parse(reply.body.substr(0, header), nullptr, false);
  FUZZ_CHECK(!body.is_discarded() && body["outputs"].is_array() && !body["outputs"].empty(),
             "bad v2 reply: %.200s", reply.body.c_str());
  size_t binary = 0;
  for (const json& output : body["outputs"]) {
    size_t count = 1;
    for (const json& dim : output["shape"]) count *= dim.get<size_t>();
    if (output.contains("data")) {
      FUZZ_CHECK(output["data"].size() == count, "data of %zu values for %zu",
                 output["data"].size(), count);
    } else {
      FUZZ_CHECK(output["parameters"]["binary_data_size"] == 4 * count, "binary size");
      binary += 4 * count;
    }
  }
  FUZZ_CHECK(reply.body.size() - header == binary, "binary part %zu, outputs claim %zu",
             reply.body.size() - header, binary);
}

void check_v2(std::string_view bytes) {
  for (serve::ModelService* service : {services().run.get(), services().embed.get()}) {
    check_v2_reply(service->v2_infer("normrt", "", bytes, std::nullopt));
    const size_t brace = bytes.rfind('}');
    if (brace != std::string_view::npos && brace + 1 < bytes.size()) {
      check_v2_reply(service->v2_infer("normrt", "", bytes, brace + 1));
    }
  }
}

void check_run(std::string_view bytes) {
  const serve::Reply reply = services().run->run(bytes);
  const json body = check_reply_shape(reply);
  if (reply.status != 200) return;
  FUZZ_CHECK(body["outputs"].is_object() && !body["outputs"].empty(), "no outputs");
  for (const auto& [name, tensor] : body["outputs"].items()) {
    FUZZ_CHECK(name == "y" || name == "z", "unknown output %s", name.c_str());
    const json& shape = tensor["shape"];
    const json& data = tensor["data"];
    FUZZ_CHECK(shape.is_array() && shape.size() == 2 && shape[1] == 3, "bad shape");
    const int64_t rows = shape[0].get<int64_t>();
    FUZZ_CHECK(rows >= 1 && rows <= kMaxSequence, "S = %lld", static_cast<long long>(rows));
    FUZZ_CHECK(data.is_array() && data.size() == static_cast<size_t>(rows * 3), "bad data");
    for (const json& value : data) {
      FUZZ_CHECK(value.is_number() && std::isfinite(value.get<double>()), "non-finite output");
      if (name == "z") FUZZ_CHECK(value.get<double>() >= 0, "relu output below 0");
    }
  }
}

void check_embeddings(std::string_view bytes) {
  const serve::Reply reply = services().embed->embeddings(bytes);
  const json body = check_reply_shape(reply);
  if (reply.status != 200) return;
  FUZZ_CHECK(body["data"].is_array() && !body["data"].empty() && body["data"].size() <= 16,
             "bad data list");
  size_t tokens = 0, truncated = 0;
  for (const json& item : body["data"]) {
    const size_t count = item["tokens"].get<size_t>();  // token-id inputs may be 1 id
    FUZZ_CHECK(count >= 1 && count <= static_cast<size_t>(kMaxSequence), "tokens = %zu", count);
    if (item["truncated"].get<bool>()) {
      FUZZ_CHECK(count == static_cast<size_t>(kMaxSequence), "truncated at %zu tokens", count);
      ++truncated;
    }
    tokens += count;
    if (item["embedding"].is_string()) {  // base64 of 1..kWidth floats: 4/3 chars per byte
      const size_t chars = item["embedding"].get_ref<const std::string&>().size();
      FUZZ_CHECK(chars % 4 == 0 && chars >= 8 && chars <= (4 * kWidth + 2) / 3 * 4,
                 "base64 of %zu chars", chars);
      continue;
    }
    double norm = 0;
    FUZZ_CHECK(
        !item["embedding"].empty() && item["embedding"].size() <= static_cast<size_t>(kWidth),
        "bad width");
    for (const json& value : item["embedding"]) norm += value.get<double>() * value.get<double>();
    FUZZ_CHECK(std::fabs(std::sqrt(norm) - 1.0) < 1e-5, "|embedding| = %g", std::sqrt(norm));
  }
  FUZZ_CHECK(body["usage"]["tokens"] == tokens, "usage.tokens");
  FUZZ_CHECK(body["usage"]["truncated_inputs"] == truncated, "usage.truncated_inputs");
}

void check_head(std::string_view bytes) {
  serve::RequestHead head;
  const serve::HeadState state = serve::scan_request_head(bytes, &head);
  if (state != serve::HeadState::kComplete) return;
  FUZZ_CHECK(head.size > 0 && head.size <= bytes.size(), "head size %zu of %zu", head.size,
             bytes.size());
  FUZZ_CHECK(!head.method.empty(), "empty method");
  auto framing = serve::body_framing(head, kMaxBody);
  if (!framing) {
    FUZZ_CHECK(framing.error().status == 400 || framing.error().status == 413, "status %d",
               framing.error().status);
    return;
  }
  if (framing->kind == serve::BodyFraming::Kind::kLength) {
    FUZZ_CHECK(framing->length <= kMaxBody, "length %llu over the limit",
               static_cast<unsigned long long>(framing->length));
    FUZZ_CHECK(head.content_lengths.size() >= 1, "a length without Content-Length");
  }
  if (framing->kind == serve::BodyFraming::Kind::kChunked) {
    FUZZ_CHECK(head.content_lengths.empty(), "chunked beside Content-Length");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_run(bytes);
  check_embeddings(bytes);
  check_v2(bytes);
  check_head(bytes);
  return 0;
}
