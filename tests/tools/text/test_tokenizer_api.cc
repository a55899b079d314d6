// The public tokenizer API (include/normrt/tokenizer.hpp) through the shared
// library libnormrt_tokenizer.so, as an application links it: every case of
// Hugging Face's fixtures, round trips through bytes, and the errors.
// Includes only public headers (and the standard-library test helpers).
#include <doctest/doctest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "normrt/tokenizer.hpp"
#include "tests/support/hex.h"

namespace {

const std::string kFixtures = std::string(NORMRT_TEXT_FIXTURE_DIR) + "/fixtures/";

// One line of fixtures/<name>.cases (make_tokenizer_fixtures.py): max_length
// TAB first-hex TAB second-hex or "-" TAB ids TAB type ids [TAB reference].
struct Case {
  size_t max_length = 0;
  std::string first;
  std::optional<std::string> second;
  std::vector<int32_t> ids, type_ids;
};

std::vector<int32_t> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::istringstream stream(text);
  for (int32_t id; stream >> id;) ids.push_back(id);
  return ids;
}

std::vector<Case> read_cases(const std::string& name) {
  std::ifstream in(kFixtures + name + ".cases");
  REQUIRE_MESSAGE(in, "cannot open " << name << ".cases");
  std::vector<Case> cases;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string max_length, first, second, ids, type_ids;
    std::getline(fields, max_length, '\t');
    std::getline(fields, first, '\t');
    std::getline(fields, second, '\t');
    std::getline(fields, ids, '\t');
    std::getline(fields, type_ids, '\t');
    Case c;
    c.max_length = std::stoul(max_length);
    c.first = normrt::test::decode_hex(first);
    c.second = normrt::test::decode_hex_or_none(second);
    c.ids = parse_ids(ids);
    c.type_ids = parse_ids(type_ids);
    cases.push_back(std::move(c));
  }
  REQUIRE(!cases.empty());
  return cases;
}

normrt::Tokenizer load(const std::string& folder) {
  auto loaded = normrt::Tokenizer::from_folder(kFixtures + folder);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  return loaded.value();
}

// Runs every case (the fixture's max_length each); returns how many matched.
size_t matching_cases(normrt::Tokenizer tokenizer, const std::vector<Case>& cases) {
  size_t matched = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    REQUIRE(tokenizer.set_max_length(c.max_length).is_ok());
    auto got = c.second ? tokenizer.encode_pair(c.first, *c.second) : tokenizer.encode(c.first);
    REQUIRE_MESSAGE(got.is_ok(), "case " << i << ": " << got.status().message());
    const bool same = got.value().ids == c.ids && got.value().type_ids == c.type_ids;
    CHECK_MESSAGE(same, "case " << i << " '" << c.first << "'");
    matched += same;
  }
  return matched;
}

}  // namespace

TEST_SUITE("public tokenizer API") {
  TEST_CASE("from_folder gives Hugging Face's ids for every kind, pairs and truncations") {
    for (auto [folder, kind] : {std::pair<const char*, const char*>{"bert_uncased", "wordpiece"},
                                {"roberta_bpe", "byte_level_bpe"},
                                {"xlmr_unigram", "unigram"}}) {
      CAPTURE(folder);
      normrt::Tokenizer tokenizer = load(folder);
      CHECK(tokenizer.kind() == kind);
      CHECK(tokenizer.description().find(folder) != std::string::npos);
      const auto cases = read_cases(folder);
      CHECK(matching_cases(tokenizer, cases) == cases.size());
    }
  }

  TEST_CASE("a round trip through to_bytes keeps every id") {
    for (const char* folder : {"bert_cased", "gpt2_bpe_prefix", "xlmr_unigram_spm"}) {
      CAPTURE(folder);
      const std::string bytes = load(folder).to_bytes();
      auto copy = normrt::Tokenizer::from_bytes(bytes);
      REQUIRE_MESSAGE(copy.is_ok(), copy.status().message());
      CHECK(copy.value().to_bytes() == bytes);
      CHECK(copy.value().description().rfind("serialized tokenizer: ", 0) == 0);
      // xlmr_unigram_spm has one case that follows libsentencepiece; the
      // fixture holds those ids, so every case must match.
      const auto cases = read_cases(folder);
      CHECK(matching_cases(copy.value(), cases) == cases.size());
    }
  }

  TEST_CASE("set_max_length truncates, and changes only this copy") {
    normrt::Tokenizer tokenizer = load("bert_uncased");
    const normrt::Tokenizer original = tokenizer;
    const std::string text = "the quick brown fox jumps over the lazy dog";
    auto full = original.encode(text);
    REQUIRE(full.is_ok());
    REQUIRE(full.value().ids.size() > 5);
    REQUIRE(tokenizer.set_max_length(5).is_ok());
    CHECK(tokenizer.max_length() == 5);
    auto cut = tokenizer.encode(text);
    REQUIRE(cut.is_ok());
    CHECK(cut.value().ids.size() == 5);
    // [CLS] the first three pieces [SEP]
    CHECK(std::vector<int32_t>(cut.value().ids.begin(), cut.value().ids.begin() + 4) ==
          std::vector<int32_t>(full.value().ids.begin(), full.value().ids.begin() + 4));
    CHECK(cut.value().ids.back() == full.value().ids.back());
    CHECK(original.max_length() != 5);
    CHECK(original.encode(text).value().ids == full.value().ids);
    CHECK_FALSE(tokenizer.set_max_length(1).is_ok());  // cannot hold [CLS] and [SEP]
  }

  TEST_CASE("token_id finds special and ordinary tokens, -1 otherwise") {
    normrt::Tokenizer tokenizer = load("bert_uncased");
    CHECK(tokenizer.token_id("[CLS]") == 2);
    CHECK(tokenizer.token_id("[SEP]") == 3);
    CHECK(tokenizer.token_id("no such token at all") == -1);
    CHECK(tokenizer.vocab_size() > 200);
  }

  TEST_CASE("errors name what is wrong") {
    auto missing = normrt::Tokenizer::from_folder(kFixtures + "no_such_folder");
    REQUIRE_FALSE(missing.is_ok());
    CHECK(missing.status().message().find("no_such_folder") != std::string::npos);

    auto garbage = normrt::Tokenizer::from_bytes("NRTK\x01\x63 not a tokenizer");
    REQUIRE_FALSE(garbage.is_ok());
    CHECK(garbage.status().message().find("offset") != std::string::npos);

    auto invalid = load("bert_uncased").encode("ok \xff\xfe bad");
    REQUIRE_FALSE(invalid.is_ok());
    CHECK(invalid.status().message().find("UTF-8") != std::string::npos);
  }
}
