// KServe v2 / Open Inference Protocol (REST) in-process: health, server and
// model metadata, inference with INT32 / INT64 / FP32 / BYTES tensors in
// JSON and in the binary extension (both ways), outputs selection, the id
// echo, and every error in the protocol's {"error": "<message>"} shape.
// Expected values are direct Session runs, compared bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

using nlohmann::json;

std::unique_ptr<serve::ModelService> bert_service() {
  auto model = tiny_bert("mean");
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *model, false);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  serve::ServiceOptions options;
  options.model_name = "tiny";
  options.max_embedding_inputs = 4;
  auto service = serve::ModelService::create(model, options, std::move(tokenizer).value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

std::unique_ptr<serve::ModelService> linear_service(const LinearModel& linear) {
  serve::ServiceOptions options;
  options.model_name = "linear";
  auto service = serve::ModelService::create(linear.model, options);
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

std::vector<float> direct(const std::vector<int32_t>& ids) {
  return direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
}

// A v2 error: the status, and a body that is exactly {"error": "<message>"}.
void check_v2_error(const serve::Reply& reply, int status, const std::string& part) {
  INFO("body: " << reply.body);
  CHECK(reply.status == status);
  json body = parse_body(reply.body);
  REQUIRE(body.is_object());
  REQUIRE(body.size() == 1);
  REQUIRE(body["error"].is_string());
  CHECK_MESSAGE(body["error"].get<std::string>().find(part) != std::string::npos,
                "expected '" << part << "' in '" << body["error"].get<std::string>() << "'");
}

json ok_json(const serve::Reply& reply) {
  INFO("body: " << reply.body.substr(0, 400));
  REQUIRE(reply.status == 200);
  CHECK(reply.content_type == "application/json");
  return parse_body(reply.body);
}

std::string le_bytes(const std::vector<int64_t>& values, size_t width) {
  std::string out;
  for (int64_t v : values) {
    for (size_t b = 0; b < width; ++b)
      out += static_cast<char>(static_cast<uint64_t>(v) >> (8 * b));
  }
  return out;
}

std::string le_floats(const std::vector<float>& values) {
  std::vector<int64_t> bits;
  for (float v : values) {
    uint32_t word;
    std::memcpy(&word, &v, 4);
    bits.push_back(word);
  }
  return le_bytes(bits, 4);
}

std::vector<float> floats_from_le(std::string_view bytes) {
  std::vector<float> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t word = 0;
    for (int b = 0; b < 4; ++b)
      word |= uint32_t{static_cast<unsigned char>(bytes[4 * i + b])} << (8 * b);
    std::memcpy(&values[i], &word, 4);
  }
  return values;
}

std::string bytes_element(const std::string& text) {
  return le_bytes({static_cast<int64_t>(text.size())}, 4) + text;
}

// The JSON header and binary part of a binary reply.
std::pair<json, std::string> split_binary(const serve::Reply& reply) {
  REQUIRE(reply.status == 200);
  CHECK(reply.content_type == "application/octet-stream");
  std::string length;
  for (const auto& [name, value] : reply.headers) {
    if (name == "Inference-Header-Content-Length") length = value;
  }
  REQUIRE_FALSE(length.empty());
  const size_t header = std::stoul(length);
  REQUIRE(header <= reply.body.size());
  return {parse_body(reply.body.substr(0, header)), reply.body.substr(header)};
}

TEST_CASE("v2: live and ready are 200 with an empty body; server metadata names the extension") {
  auto service = bert_service();
  for (const serve::Reply& reply :
       {service->v2_live(), service->v2_ready(), service->v2_model_ready("tiny", ""),
        service->v2_model_ready("tiny", "1")}) {
    CHECK(reply.status == 200);
    CHECK(reply.body.empty());
  }
  check_v2_error(service->v2_model_ready("other", ""), 404, "'other' is not served here");
  check_v2_error(service->v2_model_ready("tiny", "2"), 404, "no version '2'");
  CHECK(ok_json(service->v2_server_metadata()) == json{{"name", "normrt"},
                                                       {"version", normrt::version()},
                                                       {"extensions", {"binary_tensor_data"}}});
}

TEST_CASE("v2: model metadata — datatypes, -1 for S, the text input with a tokenizer") {
  auto bert = bert_service();
  CHECK(ok_json(bert->v2_model_metadata("tiny", "")) ==
        json::parse(R"({"name": "tiny", "versions": ["1"], "platform": "normrt",
          "inputs": [{"name": "input_ids", "datatype": "INT32", "shape": [-1]},
                     {"name": "text", "datatype": "BYTES", "shape": [-1]}],
          "outputs": [{"name": "embedding", "datatype": "FP32", "shape": [-1, 32]}]})"));
  auto linear = linear_service(linear_model());
  CHECK(ok_json(linear->v2_model_metadata("linear", "1")) ==
        json::parse(R"({"name": "linear", "versions": ["1"], "platform": "normrt",
          "inputs": [{"name": "x", "datatype": "FP32", "shape": [-1, 5]},
                     {"name": "shift", "datatype": "FP32", "shape": [3]}],
          "outputs": [{"name": "y", "datatype": "FP32", "shape": [-1, 3]},
                      {"name": "z", "datatype": "FP32", "shape": [-1, 3]}]})"));
  check_v2_error(linear->v2_model_metadata("tiny", ""), 404, "'tiny' is not served here");
}

TEST_CASE("v2 infer: FP32 tensors in JSON (flat and nested), outputs chosen, id echoed") {
  const LinearModel linear = linear_model();
  auto service = linear_service(linear);
  const std::vector<float> x = {0.5f, -1, 2, 3, 4, 1, 1, 1, 1, -7.25f};  // S = 2
  const std::vector<float> shift = {0, 1, -2};
  const std::vector<float> y =
      direct_run(linear.model, {{"x", bytes_of(x)}, {"shift", bytes_of(shift)}}, "y");
  const std::vector<float> z =
      direct_run(linear.model, {{"x", bytes_of(x)}, {"shift", bytes_of(shift)}}, "z");
  for (const char* x_data :
       {"[0.5, -1, 2, 3, 4, 1, 1, 1, 1, -7.25]", "[[0.5, -1, 2, 3, 4], [1, 1, 1, 1, -7.25]]"}) {
    INFO("x data: " << x_data);
    const std::string body = std::string(R"({"id": "r-7", "parameters": {"priority": 3}, "inputs": [
          {"name": "shift", "shape": [3], "datatype": "FP32", "data": [0, 1, -2]},
          {"name": "x", "shape": [2, 5], "datatype": "FP32", "data": )") +
                             x_data + R"(}], "outputs": [{"name": "z"}, {"name": "y"}]})";
    json reply = ok_json(service->v2_infer("linear", "", body, std::nullopt));
    CHECK(reply["model_name"] == "linear");
    CHECK(reply["model_version"] == "1");
    CHECK(reply["id"] == "r-7");
    REQUIRE(reply["outputs"].size() == 2);
    CHECK(reply["outputs"][0]["name"] == "z");
    CHECK(reply["outputs"][0]["datatype"] == "FP32");
    CHECK(reply["outputs"][0]["shape"] == json{2, 3});
    check_same_floats(floats_of(reply["outputs"][0]["data"]), z.data(), z.size(), "z");
    check_same_floats(floats_of(reply["outputs"][1]["data"]), y.data(), y.size(), "y");
  }
  // No "outputs": all of them, in the model's order; no "id": none echoed.
  json all = ok_json(service->v2_infer("linear", "1", R"({"inputs": [
      {"name": "x", "shape": [1, 5], "datatype": "FP32", "data": [1, 2, 3, 4, 5]},
      {"name": "shift", "shape": [3], "datatype": "FP32", "data": [0, 0, 0]}]})",
                                       std::nullopt));
  CHECK_FALSE(all.contains("id"));
  REQUIRE(all["outputs"].size() == 2);
  CHECK(all["outputs"][0]["name"] == "y");
  CHECK(all["outputs"][1]["name"] == "z");
}

TEST_CASE("v2 infer: binary FP32 in, binary and JSON out, bit for bit") {
  const LinearModel linear = linear_model();
  auto service = linear_service(linear);
  const std::vector<float> x = {1e-3f, -2.5f, 3, 4, 5, 6, 7,    8,
                                9,     1e30f, 0, 0, 0, 0, -0.0f};  // S = 3
  const std::vector<float> shift = {1, 2, 3};
  const std::vector<float> y =
      direct_run(linear.model, {{"x", bytes_of(x)}, {"shift", bytes_of(shift)}}, "y");
  const std::string header = R"({"inputs": [
      {"name": "x", "shape": [3, 5], "datatype": "FP32", "parameters": {"binary_data_size": 60}},
      {"name": "shift", "shape": [3], "datatype": "FP32", "parameters": {"binary_data_size": 12}}],
      "parameters": {"binary_data_output": true},
      "outputs": [{"name": "y"}, {"name": "z", "parameters": {"binary_data": false}}]})";
  const std::string body = header + le_floats(x) + le_floats(shift);
  serve::Reply reply = service->v2_infer("linear", "", body, header.size());
  auto [json_part, binary] = split_binary(reply);
  REQUIRE(json_part["outputs"].size() == 2);
  CHECK(json_part["outputs"][0]["parameters"]["binary_data_size"] == 36);
  CHECK_FALSE(json_part["outputs"][0].contains("data"));
  CHECK(json_part["outputs"][1].contains("data"));  // binary_data false overrides the default
  REQUIRE(binary.size() == 36);
  check_same_floats(floats_from_le(binary), y.data(), y.size(), "binary y");
}

TEST_CASE("v2 infer: token ids as INT32 and INT64, JSON and binary, equal the text") {
  auto service = bert_service();
  const std::vector<float> want = direct({2, 5, 6, 7, 3});
  auto check_embedding = [&](const json& reply, const std::string& what) {
    REQUIRE(reply["outputs"].size() == 1);
    CHECK(reply["outputs"][0]["name"] == "embedding");
    CHECK(reply["outputs"][0]["shape"] == json{1, 32});
    check_same_floats(floats_of(reply["outputs"][0]["data"]), want.data(), want.size(), what);
  };
  for (const char* type : {"INT32", "INT64"}) {
    check_embedding(
        ok_json(service->v2_infer(
            "tiny", "",
            std::string(R"({"inputs": [{"name": "input_ids", "shape": [5], "datatype": ")") + type +
                R"(", "data": [2, 5, 6, 7, 3]}]})",
            std::nullopt)),
        std::string("JSON ") + type);
    const size_t width = std::string(type) == "INT64" ? 8 : 4;
    const std::string header =
        std::string(R"({"inputs": [{"name": "input_ids", "shape": [5], "datatype": ")") + type +
        R"(", "parameters": {"binary_data_size": )" + std::to_string(5 * width) + "}}]}";
    check_embedding(ok_json(service->v2_infer("tiny", "", header + le_bytes({2, 5, 6, 7, 3}, width),
                                              header.size())),
                    std::string("binary ") + type);
  }
  // The same sentence as text: BYTES in JSON, and in binary.
  check_embedding(
      ok_json(service->v2_infer(
          "tiny", "",
          R"({"inputs": [{"name": "text", "shape": [1], "datatype": "BYTES", "data": ["the cat sat"]}]})",
          std::nullopt)),
      "text");
  const std::string header =
      R"({"inputs": [{"name": "text", "shape": [2, 1], "datatype": "BYTES", "parameters": {"binary_data_size": 29}}]})";
  serve::Reply both = service->v2_infer(
      "tiny", "", header + bytes_element("the cat sat") + bytes_element("alpha beta"),
      header.size());
  json reply = ok_json(both);
  CHECK(reply["outputs"][0]["shape"] == json{2, 32});
  const std::vector<float> rows = floats_of(reply["outputs"][0]["data"]);
  const std::vector<float> second = direct({2, 10, 11, 3});
  check_same_floats(std::vector<float>(rows.begin(), rows.begin() + 32), want.data(), 32, "row 0");
  check_same_floats(std::vector<float>(rows.begin() + 32, rows.end()), second.data(), 32, "row 1");
}

TEST_CASE("v2 infer errors: every one a 400/404 in the protocol's shape, naming the fault") {
  auto bert = bert_service();
  auto linear = linear_service(linear_model());
  struct Case {
    serve::ModelService* service;
    std::string name, body;
    int status;
    std::string part;
  };
  serve::ModelService* b = bert.get();
  serve::ModelService* l = linear.get();
  const std::string ids = R"("name": "input_ids", "shape": [2], "datatype": "INT32")";
  for (
      const Case& c : {
          Case{b, "nope", R"({"inputs": []})", 404, "'nope' is not served here"},
          Case{b, "tiny", R"({"inputs": ")", 400, "not valid JSON"},
          Case{b, "tiny", R"({"inputs": []})", 400, "\"inputs\" must be a non-empty array"},
          Case{b, "tiny", R"({"id": 5, "inputs": [{)" + ids + R"(, "data": [2, 3]}]})", 400,
               "\"id\" must be a string"},
          Case{b, "tiny", R"({"inputs": [{)" + ids + R"(, "data": [2, 3.5]}]})", 400,
               "input 'input_ids': data[1] is 3.5, expected an integer"},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "input_ids", "shape": [2], "datatype": "INT64", "data": [2, 3000000000]}]})",
              400, "3000000000 is outside the i32 range"},
          Case{b, "tiny", R"({"inputs": [{)" + ids + R"(, "data": [2, 3, 4]}]})", 400,
               "\"shape\" [2] needs 2 values, \"data\" has 3"},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "input_ids", "shape": [2], "datatype": "FP32", "data": [2, 3]}]})",
              400, "input 'input_ids' has datatype FP32; the model's input is INT32"},
          Case{b, "tiny", R"({"inputs": [{)" + ids + R"(}]})", 400, "missing \"data\""},
          Case{b, "tiny",
               R"({"inputs": [{)" + ids +
                   R"(, "data": [2, 3], "parameters": {"shared_memory_region": "r"}}]})",
               400, "shared memory"},
          Case{
              b, "tiny",
              R"({"inputs": [{)" + ids +
                  R"(, "data": [2, 3]}], "outputs": [{"name": "embedding", "parameters": {"class_count": 3}}]})",
              400, "classification extension"},
          Case{b, "tiny",
               R"({"inputs": [{)" + ids + R"(, "data": [2, 3]}], "outputs": [{"name": "logits"}]})",
               400, "the model has no output 'logits'"},
          Case{b, "tiny",
               R"({"inputs": [{"name": "ids", "shape": [1], "datatype": "INT32", "data": [2]}]})",
               400, "the model has no input 'ids' (its inputs: input_ids INT32 [S])"},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "text", "shape": [5], "datatype": "BYTES", "data": ["a", "b", "c", "d", "e"]}]})",
              400, "5 texts, at most 4 per request (--max-batch)"},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "words", "shape": [1], "datatype": "BYTES", "data": ["a"]}]})",
              400, "texts go alone in the input \"text\""},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "text", "shape": [2], "datatype": "BYTES", "data": ["a", 5]}]})",
              400, "data[1] is number, expected a string (BYTES)"},
          Case{
              b, "tiny",
              R"({"inputs": [{"name": "text", "shape": [2], "datatype": "BYTES", "data": ["a"]}]})",
              400, "input 'text' has 1 elements, its shape says 2"},
          Case{
              l, "linear",
              R"({"inputs": [{"name": "text", "shape": [1], "datatype": "BYTES", "data": ["a"]}]})",
              400, "this model takes no text"},
          Case{
              l, "linear",
              R"({"inputs": [{"name": "x", "shape": [1, 5], "datatype": "FP32", "data": [1, 2, 3, 4, 5]}]})",
              400, "missing input 'shift'"},
          Case{
              l, "linear",
              R"({"inputs": [{"name": "x", "shape": [1, 5], "datatype": "FP32", "data": [1, 2, 3, 4, "NaN"]}, {"name": "shift", "shape": [3], "datatype": "FP32", "data": [0, 0, 0]}]})",
              400, "f32 inputs must be finite"},
      }) {
    INFO("body: " << c.body);
    check_v2_error(c.service->v2_infer(c.name, "", c.body, std::nullopt), c.status, c.part);
  }
  check_v2_error(bert->v2_infer("tiny", "3", R"({"inputs": []})", std::nullopt), 404,
                 "no version '3'");
}

TEST_CASE("v2 infer errors: the binary section's framing") {
  auto bert = bert_service();
  auto linear = linear_service(linear_model());
  const std::string header =
      R"({"inputs": [{"name": "input_ids", "shape": [2], "datatype": "INT32", "parameters": {"binary_data_size": 8}}]})";
  check_v2_error(bert->v2_infer("tiny", "", header + le_bytes({2, 3}, 4) + "xx", header.size()),
                 400, "2 bytes of binary data after the JSON header that no input claims");
  check_v2_error(bert->v2_infer("tiny", "", header + "1234", header.size()), 400,
                 "runs past the 4 bytes of binary data");
  check_v2_error(bert->v2_infer("tiny", "", header, header.size() + 1), 400,
                 "Inference-Header-Content-Length " + std::to_string(header.size() + 1) +
                     " is more than the body's");
  const std::string wrong_size =
      R"({"inputs": [{"name": "input_ids", "shape": [3], "datatype": "INT32", "parameters": {"binary_data_size": 8}}]})";
  check_v2_error(bert->v2_infer("tiny", "", wrong_size + le_bytes({2, 3}, 4), wrong_size.size()),
                 400, "8 bytes of binary data for shape [3] of INT32, expected 12");
  // A shape whose product overflows 64 bits saturates at 2^40 elements instead of wrapping to 0.
  const std::string huge =
      R"({"inputs": [{"name": "input_ids", "shape": [2147483648, 2147483648, 2147483648], "datatype": "INT32", "parameters": {"binary_data_size": 0}}]})";
  check_v2_error(bert->v2_infer("tiny", "", huge, huge.size()), 400,
                 "0 bytes of binary data for shape [2147483648,2147483648,2147483648] of INT32, "
                 "expected 4398046511104");
  const std::string text =
      R"({"inputs": [{"name": "text", "shape": [1], "datatype": "BYTES", "parameters": {"binary_data_size": 6}}]})";
  check_v2_error(bert->v2_infer("tiny", "", text + le_bytes({9}, 4) + "ab", text.size()), 400,
                 "claims 9 bytes, only 2 follow");
  const std::string nan_header =
      R"({"inputs": [{"name": "x", "shape": [1, 5], "datatype": "FP32", "parameters": {"binary_data_size": 20}}, {"name": "shift", "shape": [3], "datatype": "FP32", "data": [0, 0, 0]}]})";
  check_v2_error(linear->v2_infer("linear", "", nan_header + le_floats({1, 2, 3, std::nanf(""), 5}),
                                  nan_header.size()),
                 400, "input 'x': data[3] is not finite");
}

}  // namespace
}  // namespace normrt::testing
