// serialize() / deserialize(): a round trip keeps every id of every kind and
// re-serializes to the same bytes; malformed bytes give an error naming the
// offset (every truncation, every single-byte change of a small tokenizer).
#include <doctest/doctest.h>

#include "tests/tools/text/tokenizer_cases.h"
#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt::text {
namespace {

const std::string kFixtures = std::string(NORMRT_TEXT_FIXTURE_DIR) + "/fixtures/";

Tokenizer load(const std::string& folder) {
  auto loaded = load_tokenizer_folder(kFixtures + folder);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  return loaded.value().tokenizer;
}

std::string error_of(std::string_view bytes) {
  auto tokenizer = deserialize(bytes);
  REQUIRE_FALSE(tokenizer.is_ok());
  return tokenizer.status().message();
}

}  // namespace

TEST_SUITE("tokenizer serialization") {
  TEST_CASE("a round trip keeps every id, and re-serializes to the same bytes") {
    for (auto [folder, cases] : {std::pair<const char*, const char*>{"roberta_bpe", "roberta_bpe"},
                                 {"gpt2_bpe_prefix", "gpt2_bpe_prefix"},
                                 {"bert_uncased", "bert_uncased"},
                                 {"bert_cased", "bert_cased"},
                                 {"mpnet_wordpiece", "mpnet_wordpiece"},
                                 {"xlmr_unigram", "xlmr_unigram"},
                                 {"xlmr_unigram_converted", "xlmr_unigram_converted"},
                                 {"xlmr_unigram_spm", "xlmr_unigram_spm"}}) {
      CAPTURE(folder);
      const std::string bytes = serialize(load(folder));
      auto copy = deserialize(bytes);
      REQUIRE_MESSAGE(copy.is_ok(), copy.status().message());
      CHECK(serialize(copy.value()) == bytes);
      const auto expected = read_cases(kFixtures + cases + ".cases");
      CHECK(check_cases(copy.value(), expected, folder) == expected.size());
    }
  }

  TEST_CASE("max_length and the truncation strategy travel with the tokenizer") {
    Tokenizer tokenizer = load("bert_uncased");
    REQUIRE(tokenizer.set_max_length(5).is_ok());
    auto copy = deserialize(serialize(tokenizer));
    REQUIRE(copy.is_ok());
    CHECK(copy.value().truncation().max_length == 5);
    auto ids = copy.value().encode("the quick brown fox jumps over the lazy dog");
    REQUIRE(ids.is_ok());
    CHECK(ids.value().ids.size() == 5);
  }

  TEST_CASE("every truncation of the bytes is an error naming an offset") {
    for (const char* folder : {"bert_cased", "xlmr_unigram", "xlmr_unigram_spm"}) {
      CAPTURE(folder);
      const std::string bytes = serialize(load(folder));
      for (size_t n = 0; n < bytes.size(); ++n) {
        auto tokenizer = deserialize(std::string_view(bytes).substr(0, n));
        REQUIRE_FALSE(tokenizer.is_ok());
        REQUIRE_MESSAGE(tokenizer.status().message().find("offset ") != std::string::npos,
                        n << ": " << tokenizer.status().message());
      }
    }
  }

  TEST_CASE("any single changed byte is an error or a tokenizer that still encodes") {
    for (const char* folder : {"bert_cased", "roberta_bpe", "xlmr_unigram", "xlmr_unigram_spm"}) {
      CAPTURE(folder);
      const std::string bytes = serialize(load(folder));
      size_t errors = 0;
      for (size_t i = 0; i < bytes.size(); i += 7) {
        for (uint8_t flip : {0x01, 0x80, 0xFF}) {
          std::string changed = bytes;
          changed[i] = static_cast<char>(changed[i] ^ flip);
          auto tokenizer = deserialize(changed);
          if (!tokenizer.is_ok()) {
            ++errors;
            REQUIRE(tokenizer.status().message().find("tokenizer bytes: offset ") == 0);
            continue;
          }
          auto ids = tokenizer.value().encode("Hello, world! Café 我爱 <mask> don't");
          if (ids.is_ok())
            for (int32_t id : ids.value().ids)
              REQUIRE(static_cast<size_t>(id) < tokenizer.value().model().vocab_size());
        }
      }
      CHECK(errors > 0);
    }
  }

  TEST_CASE("header errors say what is wrong") {
    const std::string bytes = serialize(load("bert_cased"));
    CHECK(error_of("") == "tokenizer bytes: offset 0: not a normrt tokenizer (no \"NRTK\")");
    CHECK(error_of("NRTX" + bytes.substr(4)).find("no \"NRTK\"") != std::string::npos);
    std::string version = bytes;
    version[4] = 2;
    CHECK(error_of(version) == "tokenizer bytes: offset 4: version 2, this build reads version 1");
    std::string kind = bytes;
    kind[5] = 9;
    CHECK(error_of(kind) == "tokenizer bytes: offset 5: unknown tokenizer kind 9");
    CHECK(error_of(bytes + "x") == "tokenizer bytes: offset " + std::to_string(bytes.size()) +
                                       ": 1 bytes after the tokenizer's end");
    std::string count = bytes.substr(0, 7);  // WordPiece flags, then a string length
    count += std::string("\xFF\xFF\xFF\x7F", 4);
    CHECK(error_of(count).find(
              "offset 7: WordPiece unk token: length 2147483647 but only 0 bytes left") !=
          std::string::npos);
  }
}

}  // namespace normrt::text
