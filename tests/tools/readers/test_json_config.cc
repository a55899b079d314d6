// JsonConfig: typed accessors whose errors name the file, the key, the
// expected and the found type.
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "formats/json/json_config.h"
#include "reader_test_support.h"

namespace normrt::test {
namespace {

JsonConfig parse_ok(const std::string& text) {
  auto config = JsonConfig::parse(text, "config.json");
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  return std::move(config).value();
}

TEST_SUITE("json_config") {
  TEST_CASE("typed values and fallbacks") {
    const JsonConfig config = parse_ok(R"({
      "hidden_size": 768, "layer_norm_eps": 1e-5, "scale": 2, "hidden_act": "gelu",
      "tie": true, "rope_scaling": null, "big": 9223372036854775807, "layers": [1, 2]
    })");
    CHECK(*config.require_int("hidden_size") == 768);
    CHECK(*config.require_int("big") == INT64_MAX);
    CHECK(*config.require_double("layer_norm_eps") == 1e-5);
    CHECK(*config.require_double("scale") == 2.0);
    CHECK(*config.require_string("hidden_act") == "gelu");
    CHECK(*config.require_bool("tie"));
    CHECK(*config.optional_double("missing_eps", 1e-12) == 1e-12);
    CHECK(*config.optional_int("missing", -3) == -3);
    CHECK(*config.optional_string("rope_scaling", "none") == "none");  // null counts as absent
    CHECK(!*config.optional_bool("missing", false));
    CHECK(config.has("hidden_size"));
    CHECK(!config.has("rope_scaling"));
    CHECK(config.root().at("layers").size() == 2);
  }

  TEST_CASE("wrong types and missing keys name the key and both types") {
    const JsonConfig config =
        parse_ok(R"({"hidden_size": "768", "eps": "small", "n": 1.5, "flag": 1,
                     "huge": 18446744073709551615, "name": 3})");
    check_error(
        config.require_int("hidden_size").status(),
        {"config.json", "key 'hidden_size'", "expected an integer", "found string \"768\""});
    check_error(config.require_int("n").status(), {"key 'n'", "found number 1.5"});
    check_error(config.require_int("huge").status(), {"key 'huge'", "expected an integer"});
    check_error(config.optional_double("eps", 1.0).status(),
                {"key 'eps'", "expected a number", "found string"});
    check_error(config.require_bool("flag").status(), {"key 'flag'", "true or false", "number 1"});
    check_error(config.require_string("name").status(), {"key 'name'", "a string", "number 3"});
    check_error(config.require_int("vocab_size").status(),
                {"config.json", "missing required key 'vocab_size'", "an integer"});
  }

  TEST_CASE("syntax errors give line and column; the top level must be an object") {
    check_error(JsonConfig::parse("{\n  \"a\": 1,\n  \"b\": ]\n}", "config.json").status(),
                {"config.json", "line 3, column 8"});
    check_error(JsonConfig::parse("[1]", "config.json").status(),
                {"top level", "expected a JSON object", "found array"});
    check_error(JsonConfig::parse("", "config.json").status(), {"config.json"});
    check_error(JsonConfig::parse(std::string(100, '[') + std::string(100, ']'), "c.json").status(),
                {"nests deeper than 64"});
  }

  TEST_CASE("load() reads a file and names it") {
    const std::string path = write_temp_file(bytes_of(std::string("{\"n_layers\": 2}")), ".json");
    auto config = JsonConfig::load(path);
    REQUIRE_MESSAGE(config.is_ok(), config.status().message());
    CHECK(*config->require_int("n_layers") == 2);
    check_error(config->require_int("d").status(), {path, "'d'"});
    std::remove(path.c_str());
    check_error(JsonConfig::load(path).status(), {path, "cannot open"});
  }
}

}  // namespace
}  // namespace normrt::test
