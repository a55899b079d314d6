// POST /v1/embeddings as OpenAI's API defines it, in-process on the tiny
// BERT (H = 32, max S = 16) with the 64-token vocabulary of
// serve_test_support.h: every input shape, base64 decoded here by an
// independent decoder and compared bit for bit, "dimensions" (Matryoshka)
// against a long-double reference, model names, unknown fields, the batch
// limit, GET /v1/models, and the error shape.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "tests/tools/serve/serve_test_support.h"
#include "tools/serve/embedding_output.h"
#include "tools/serve/model_service.h"

namespace normrt::testing {
namespace {

constexpr size_t kWidth = 32;

std::unique_ptr<serve::ModelService> service_with(serve::ServiceOptions options) {
  auto model = tiny_bert("mean");
  auto tokenizer = serve::load_tokenizer(tiny_vocab_path(), *model, false);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  options.workers = 2;
  options.model_name = "tiny";
  options.model_aliases = {"text-embedding-ada-002"};
  auto service = serve::ModelService::create(model, options, std::move(tokenizer).value());
  REQUIRE_MESSAGE(service.is_ok(), service.status().message());
  return std::move(service).value();
}

std::unique_ptr<serve::ModelService> default_service() { return service_with({}); }

std::vector<float> direct(const std::vector<int32_t>& ids) {
  return direct_run(tiny_bert("mean"), {{"input_ids", bytes_of(ids)}}, "embedding");
}

nlohmann::json ok_body(const serve::Reply& reply) {
  INFO("body: " << reply.body.substr(0, 400));
  REQUIRE(reply.status == 200);
  return parse_body(reply.body);
}

// RFC 4648 base64, decoded by lookup in the alphabet (independent of the
// server's encoder, which shifts bit groups out of 24-bit words).
std::vector<unsigned char> decode_base64(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  REQUIRE(text.size() % 4 == 0);
  std::vector<unsigned char> bytes;
  std::vector<int> sextets;
  for (char c : text) {
    if (c == '=') break;
    const size_t value = kAlphabet.find(c);
    REQUIRE_MESSAGE(value != std::string::npos, "not base64: " << c);
    sextets.push_back(static_cast<int>(value));
  }
  for (size_t i = 0; i + 1 < sextets.size(); i += 4) {
    bytes.push_back(static_cast<unsigned char>(sextets[i] << 2 | sextets[i + 1] >> 4));
    if (i + 2 < sextets.size()) {
      bytes.push_back(static_cast<unsigned char>((sextets[i + 1] & 15) << 4 | sextets[i + 2] >> 2));
    }
    if (i + 3 < sextets.size()) {
      bytes.push_back(static_cast<unsigned char>((sextets[i + 2] & 3) << 6 | sextets[i + 3]));
    }
  }
  return bytes;
}

// Little-endian float32 values, assembled byte by byte.
std::vector<float> little_endian_floats(const std::vector<unsigned char>& bytes) {
  REQUIRE(bytes.size() % 4 == 0);
  std::vector<float> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t bits = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 |
                          uint32_t{bytes[4 * i + 2]} << 16 | uint32_t{bytes[4 * i + 3]} << 24;
    std::memcpy(&values[i], &bits, 4);
  }
  return values;
}

TEST_CASE("base64: the encoder matches RFC 4648's test vectors, every tail length") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    std::string out = "prefix:";
    serve::append_base64(out, reinterpret_cast<const unsigned char*>(plain), std::strlen(plain));
    CHECK(out == std::string("prefix:") + encoded);
  }
  // All 256 byte values round-trip through the independent decoder.
  std::vector<unsigned char> all(256);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<unsigned char>(255 - i);
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{255}, size_t{256}}) {
    std::string out;
    serve::append_base64(out, all.data(), size);
    CHECK(decode_base64(out) == std::vector<unsigned char>(all.begin(), all.begin() + size));
  }
}

TEST_CASE("embeddings input: a string, strings, token ids, token-id arrays; usage counts ids") {
  auto service = default_service();
  struct Case {
    std::string input;
    std::vector<std::vector<int32_t>> ids;  // what each item must run on
  };
  for (const Case& c : {
           Case{R"("the cat")", {{2, 5, 6, 3}}},
           Case{R"(["the cat", "alpha", ""])", {{2, 5, 6, 3}, {2, 10, 3}, {2, 3}}},
           Case{R"([2, 9, 9, 3])", {{2, 9, 9, 3}}},  // one input of ids, run as given
           Case{R"([7])", {{7}}},                    // no [CLS]/[SEP] added
           Case{R"([[2, 10, 3], [63, 0, 1], [5]])", {{2, 10, 3}, {63, 0, 1}, {5}}},
       }) {
    INFO("input: " << c.input);
    nlohmann::json body = ok_body(service->embeddings("{\"input\": " + c.input + "}"));
    REQUIRE(body["data"].size() == c.ids.size());
    size_t tokens = 0;
    for (size_t i = 0; i < c.ids.size(); ++i) {
      CHECK(body["data"][i]["index"] == i);
      CHECK(body["data"][i]["tokens"] == c.ids[i].size());
      const std::vector<float> want = direct(c.ids[i]);
      check_same_floats(floats_of(body["data"][i]["embedding"]), want.data(), want.size(),
                        "item " + std::to_string(i));
      tokens += c.ids[i].size();
    }
    CHECK(body["usage"]["prompt_tokens"] == tokens);
    CHECK(body["usage"]["total_tokens"] == tokens);
  }
}

TEST_CASE("embeddings input: malformed shapes and ids are 400s naming the item (param input)") {
  auto service = default_service();
  struct Case {
    std::string input, part;
  };
  for (const Case& c : {
           Case{R"([[2, 3], "a"])", "input[1] is string but input[0] is array"},
           Case{R"(["a", [2, 3]])", "input[1] is array but input[0] is string"},
           Case{R"([2, "a"])", "input[1] is string, expected a token id"},
           Case{R"([2, 3.5])", "input[1] is number, expected a token id"},
           Case{R"([[2, 3], [4, -1]])",
                "input[1][1] = -1 is not a token id of this model's "
                "vocabulary (0 ≤ id < 64)"},
           Case{R"([64])", "input[0] = 64 is not a token id"},
           Case{R"([[2], []])", "input[1] is an empty token-id array"},
           Case{R"([[2], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]])",
                "input[1] has 17 token ids, more than the 16 this model takes"},
           Case{R"({"text": "a"})", "got object"},
           Case{R"(null)", "got null"},
           Case{R"([null])", "input[0] is null"},
       }) {
    INFO("input: " << c.input);
    serve::Reply reply = service->embeddings("{\"input\": " + c.input + "}");
    check_error(reply, 400, "invalid_request", c.part);
    CHECK(parse_body(reply.body)["error"]["param"] == "input");
  }
}

TEST_CASE("embeddings: 17 ids fit no model of max S 16, but 16 do") {
  auto service = default_service();
  std::string ids = "[2";
  for (int i = 0; i < 14; ++i) ids += ", 5";
  ids += ", 3]";
  nlohmann::json body = ok_body(service->embeddings("{\"input\": " + ids + "}"));
  CHECK(body["data"][0]["tokens"] == 16);
}

TEST_CASE("embeddings: base64 is the float32 little-endian bytes of the float reply, bit for bit") {
  auto service = default_service();
  const std::string input = R"(["the cat sat", "alpha beta", "", "w3 w4 w5 w6"])";
  nlohmann::json floats = ok_body(service->embeddings("{\"input\": " + input + "}"));
  nlohmann::json packed =
      ok_body(service->embeddings("{\"input\": " + input + ", \"encoding_format\": \"base64\"}"));
  REQUIRE(packed["data"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    INFO("item " << i);
    REQUIRE(packed["data"][i]["embedding"].is_string());
    const std::vector<float> decoded =
        little_endian_floats(decode_base64(packed["data"][i]["embedding"].get<std::string>()));
    const std::vector<float> want = floats_of(floats["data"][i]["embedding"]);
    check_same_floats(decoded, want.data(), want.size(), "base64 item " + std::to_string(i));
  }
  CHECK(packed["usage"] == floats["usage"]);
  // An explicit "float" (and null: the default) is the float reply.
  nlohmann::json explicit_float = ok_body(service->embeddings(
      "{\"input\": " + input + ", \"encoding_format\": \"float\", \"dimensions\": null}"));
  CHECK(explicit_float["data"] == floats["data"]);
}

TEST_CASE("embeddings: dimensions = the model's width is a no-op; others refused naming it") {
  auto service = default_service();
  nlohmann::json full = ok_body(service->embeddings(R"({"input": "alpha"})"));
  nlohmann::json same = ok_body(service->embeddings(R"({"input": "alpha", "dimensions": 32})"));
  CHECK(same["data"] == full["data"]);
  struct Case {
    std::string value, part;
  };
  for (const Case& c : {
           Case{"8",
                "the model 'tiny' gives 32-dimensional embeddings and this server does not "
                "truncate them (start normrt-serve with --matryoshka"},
           Case{"33", "\"dimensions\" = 33 is more than 32"},
       }) {
    serve::Reply reply =
        service->embeddings("{\"input\": \"alpha\", \"dimensions\": " + c.value + "}");
    check_error(reply, 400, "invalid_dimensions", c.part);
    CHECK(parse_body(reply.body)["error"]["param"] == "dimensions");
  }
  for (const char* value : {"0", "-1", "8.5", "\"8\"", "true"}) {
    INFO("dimensions: " << value);
    check_error(
        service->embeddings(std::string("{\"input\": \"a\", \"dimensions\": ") + value + "}"), 400,
        "invalid_request", "\"dimensions\" must be a positive integer");
  }
}

TEST_CASE("embeddings --matryoshka: the first d values re-normalized, as long double computes") {
  serve::ServiceOptions options;
  options.allow_dimensions = true;
  auto service = service_with(options);
  const std::vector<float> full = direct({2, 5, 6, 7, 3});
  for (size_t d : {size_t{1}, size_t{3}, size_t{8}, size_t{31}, kWidth}) {
    for (const char* format : {"float", "base64"}) {
      INFO("d = " << d << ", " << format);
      nlohmann::json body = ok_body(
          service->embeddings(std::string("{\"input\": \"the cat sat\", \"encoding_format\": \"") +
                              format + "\", \"dimensions\": " + std::to_string(d) + "}"));
      const nlohmann::json& value = body["data"][0]["embedding"];
      const std::vector<float> got =
          value.is_string() ? little_endian_floats(decode_base64(value.get<std::string>()))
                            : floats_of(value);
      REQUIRE(got.size() == d);
      long double norm = 0;
      for (size_t i = 0; i < d; ++i) norm += static_cast<long double>(full[i]) * full[i];
      norm = std::sqrt(norm);
      for (size_t i = 0; i < d; ++i) {
        const long double want = full[i] / norm;
        // Rounded once from double: within one f32 rounding of the exact value.
        CHECK_MESSAGE(
            std::fabs(static_cast<long double>(got[i]) - want) <=
                std::ldexp(std::fabs(want), -23) + 1e-30L,
            "index " << i << ": got " << got[i] << ", want " << static_cast<double>(want));
      }
    }
  }
}

TEST_CASE(
    "embeddings: model names — the served name and aliases; another is a 404 in OpenAI's shape") {
  auto service = default_service();
  for (const char* name : {"tiny", "text-embedding-ada-002"}) {
    nlohmann::json body = ok_body(
        service->embeddings(std::string("{\"input\": \"a\", \"model\": \"") + name + "\"}"));
    CHECK(body["model"] == "tiny");
  }
  serve::Reply reply = service->embeddings(R"({"input": "a", "model": "gpt-4"})");
  check_error(reply, 404, "model_not_found",
              "the model 'gpt-4' does not exist: this server serves 'tiny', "
              "'text-embedding-ada-002'");
  CHECK(parse_body(reply.body)["error"]["param"] == "model");
  check_error(service->embeddings(R"({"input": "a", "model": 5})"), 400, "invalid_request",
              "\"model\" must be a string");
}

TEST_CASE("embeddings: unknown but valid fields are ignored") {
  auto service = default_service();
  nlohmann::json plain = ok_body(service->embeddings(R"({"input": "alpha"})"));
  nlohmann::json extra = ok_body(service->embeddings(
      R"({"input": "alpha", "user": "u-1", "truncate_prompt_tokens": 5, "extra": {"a": [1, 2]}})"));
  CHECK(extra["data"] == plain["data"]);
  check_error(service->embeddings(R"({"input": "alpha", "user": 7})"), 400, "invalid_request",
              "\"user\" must be a string");
}

TEST_CASE("embeddings: the default --max-batch (2048) takes a batch of 2048, refuses 2049") {
  auto service = default_service();
  auto body_of = [](size_t count) {
    std::string body = "{\"input\": [";
    for (size_t i = 0; i < count; ++i)
      body += std::string(i ? "," : "") + "\"w" + std::to_string(i % 40) + " the\"";
    return body + "]}";
  };
  nlohmann::json body = ok_body(service->embeddings(body_of(2048)));
  REQUIRE(body["data"].size() == 2048);
  const std::vector<float> want = direct({2, 17 + 7, 5, 3});  // "w7 the": item 7 (and 47, ...)
  check_same_floats(floats_of(body["data"][2047]["embedding"]), want.data(), want.size(),
                    "item 2047");
  check_error(service->embeddings(body_of(2049)), 400, "invalid_request",
              "\"input\" has 2049 items, at most 2048 per request (--max-batch)");
}

TEST_CASE("embeddings: the memory charged grows with the body, within the --max-batch bound") {
  auto service = default_service();
  const size_t small = service->request_bytes(100);
  const size_t large = service->request_bytes(size_t{8} << 20);
  CHECK(small >= 6 * 100);
  CHECK(small < 64 * 1024);  // a small request no longer pays for 2048 inputs
  CHECK(large >= 6 * (size_t{8} << 20));
  CHECK(service->request_bytes(size_t{1} << 20) <= large);
}

TEST_CASE("GET /v1/models lists every served name; /v1/models/{id} one, or a 404") {
  auto service = default_service();
  nlohmann::json list = parse_body(service->models().body);
  CHECK(list["object"] == "list");
  REQUIRE(list["data"].size() == 2);
  CHECK(list["data"][0]["id"] == "tiny");
  CHECK(list["data"][1]["id"] == "text-embedding-ada-002");
  for (const nlohmann::json& entry : list["data"]) {
    CHECK(entry["object"] == "model");
    CHECK(entry["owned_by"] == "normrt");
    CHECK(entry["created"].is_number_integer());
  }
  CHECK(parse_body(service->model_object("tiny").body) == list["data"][0]);
  check_error(service->model_object("gpt-4"), 404, "model_not_found", "'gpt-4' does not exist");
}

}  // namespace
}  // namespace normrt::testing
