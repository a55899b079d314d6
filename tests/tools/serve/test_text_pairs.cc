// TextTokenizer's pairs (text_encoding.h): a first text encoded once
// (encode_first) and paired with many second texts gives, pair by pair,
// Hugging Face's ids and token types for the tokenizer fixtures of
// tests/tools/text (make_tokenizer_fixtures.py: pairs cut longest-first on
// either side, and whole), and the same as encode_pair; errors name the text,
// also a first text too long for any pair under only_second truncation.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/serve/serve_test_support.h"
#include "tests/tools/text/tokenizer_cases.h"
#include "tools/serve/rerank_pairs.h"
#include "tools/serve/text_encoding.h"
#include "tools/text/tokenizer_folder.h"

namespace normrt::testing {
namespace {

using text::ids_text;

const std::string kTextFixtures = std::string(NORMRT_TEXT_FIXTURE_DIR) + "/fixtures/";

// A fixture folder's tokenizer with no limit of its own (each case's
// max_length is given to the calls), longest-first as Hugging Face's default.
text::Tokenizer unlimited(const std::string& folder) {
  auto loaded = text::load_tokenizer_folder(kTextFixtures + folder);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  text::Tokenizer tokenizer = loaded.value().tokenizer;
  REQUIRE(tokenizer.set_max_length(0).is_ok());
  REQUIRE(tokenizer.truncation().strategy == text::TruncationStrategy::kLongestFirst);
  return tokenizer;
}

// The fixture's max_length (0: none) as the serve calls take it.
size_t limit_of(const text::TokenizerCase& c) {
  return c.max_length == 0 ? size_t{1} << 20 : c.max_length;
}

void check_same(const serve::EncodedPair& got, const std::vector<int32_t>& ids,
                const std::vector<int32_t>& type_ids, const char* reference) {
  CHECK_MESSAGE((got.ids == ids && got.type_ids == type_ids),
                "got  " << ids_text(got.ids) << "| " << ids_text(got.type_ids) << "\nwant "
                        << ids_text(ids) << "| " << ids_text(type_ids) << " (" << reference << ")");
}

}  // namespace

TEST_CASE("a first text encoded once pairs as Hugging Face and encode_pair, cut on either side") {
  for (const char* folder :
       {"bert_uncased", "mpnet_wordpiece", "roberta_bpe", "xlmr_unigram", "unigram_options"}) {
    CAPTURE(std::string(folder));
    const text::Tokenizer plain = unlimited(folder);
    const serve::TextTokenizer tokenizer = serve::TextTokenizer::stored(plain);
    bool cut_first = false, cut_second = false;
    size_t pairs = 0;
    for (const text::TokenizerCase& c : text::read_cases(kTextFixtures + folder + ".cases")) {
      if (!c.second || !c.reference.empty()) continue;
      CAPTURE(c.first);
      CAPTURE(*c.second);
      CAPTURE(c.max_length);
      ++pairs;
      auto first = tokenizer.encode_first(c.first, limit_of(c));
      REQUIRE_MESSAGE(first.is_ok(), first.status().message());
      auto paired = first->pair(*c.second);
      REQUIRE_MESSAGE(paired.is_ok(), paired.status().message());
      check_same(paired.value(), c.ids, c.type_ids, "Hugging Face");
      auto whole = tokenizer.encode_pair(c.first, *c.second, limit_of(c));
      REQUIRE_MESSAGE(whole.is_ok(), whole.status().message());
      check_same(paired.value(), whole->ids, whole->type_ids, "encode_pair");
      // Which side longest-first cut: the one with more tokens.
      const size_t a = plain.tokenize(c.first).value().size();
      const size_t b = plain.tokenize(*c.second).value().size();
      auto all = plain.encode_pair(c.first, *c.second);
      REQUIRE(all.is_ok());
      if (c.ids.size() < all->ids.size()) (a > b ? cut_first : cut_second) = true;
    }
    CHECK(pairs >= 8);
    CHECK(cut_first);
    CHECK(cut_second);
  }
}

TEST_CASE("one encoded first text pairs with many second texts as encode_pair does") {
  const serve::TextTokenizer tokenizer = serve::TextTokenizer::stored(unlimited("xlmr_unigram"));
  const auto cases = text::read_cases(kTextFixtures + "xlmr_unigram.cases");
  REQUIRE(cases.size() >= 50);
  // A long query and a short one, each against every text of the corpus at
  // limits that cut the query, the document or neither.
  for (const std::string& query : {cases[0].first, std::string("why?"),
                                   std::string("a rather longer question about several things")}) {
    for (size_t max_length : {size_t{6}, size_t{9}, size_t{16}, size_t{1} << 20}) {
      CAPTURE(query);
      CAPTURE(max_length);
      auto first = tokenizer.encode_first(query, max_length);
      REQUIRE_MESSAGE(first.is_ok(), first.status().message());
      for (const text::TokenizerCase& c : cases) {
        CAPTURE(c.first);
        auto paired = first->pair(c.first);
        auto whole = tokenizer.encode_pair(query, c.first, max_length);
        REQUIRE_MESSAGE(paired.is_ok(), paired.status().message());
        REQUIRE_MESSAGE(whole.is_ok(), whole.status().message());
        check_same(paired.value(), whole->ids, whole->type_ids, "encode_pair");
        CHECK(paired->ids.size() <= max_length);
      }
    }
  }
}

TEST_CASE("pair errors name the text: invalid UTF-8 in the first or the second") {
  const serve::TextTokenizer tokenizer = serve::TextTokenizer::stored(unlimited("bert_uncased"));
  auto first = tokenizer.encode_first("ok\xC0\x80", 16);
  REQUIRE_FALSE(first.is_ok());
  CHECK(first.status().message() == "text: invalid UTF-8 at byte 2");
  auto good = tokenizer.encode_first("ok", 16);
  REQUIRE(good.is_ok());
  auto second = good->pair("a\xFF");
  REQUIRE_FALSE(second.is_ok());
  CHECK(second.status().message() == "text: invalid UTF-8 at byte 1");
  // encode_pair says which text.
  CHECK(tokenizer.encode_pair("\xFF", "b", 16).status().message() ==
        "first text: text: invalid UTF-8 at byte 0");
  CHECK(tokenizer.encode_pair("a", "bb\xFF", 16).status().message() ==
        "second text: text: invalid UTF-8 at byte 2");
}

TEST_CASE("only_second truncation: a first text too long for any pair is that text's error") {
  // bert_uncased's folder, its tokenizer.json cutting pairs OnlySecond at 8
  // ids: [CLS] a [SEP] b [SEP] leaves 5 pieces for the two texts.
  const std::string dir = scratch_path("only_second_tokenizer");
  std::filesystem::create_directories(dir);
  for (const auto& entry : std::filesystem::directory_iterator(kTextFixtures + "bert_uncased"))
    std::filesystem::copy_file(entry.path(), dir + "/" + entry.path().filename().string());
  std::ifstream in(dir + "/tokenizer.json");
  nlohmann::json config = nlohmann::json::parse(in);
  in.close();
  config["truncation"] = {
      {"max_length", 8}, {"strategy", "OnlySecond"}, {"direction", "Right"}, {"stride", 0}};
  std::ofstream(dir + "/tokenizer.json") << config.dump();
  auto loaded = text::load_tokenizer_folder(dir);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  REQUIRE(loaded.value().tokenizer.truncation().strategy == text::TruncationStrategy::kOnlySecond);
  const serve::TextTokenizer tokenizer = serve::TextTokenizer::stored(loaded.value().tokenizer);

  // The first text stays whole, the second is cut to what is left.
  const text::Tokenizer& plain = loaded.value().tokenizer;
  auto fits = tokenizer.encode_pair("the fox", "a b c d e f", 8);
  REQUIRE_MESSAGE(fits.is_ok(), fits.status().message());
  auto want = plain.encode_pair("the fox", "a b c d e f");
  REQUIRE(want.is_ok());
  CHECK(fits->ids == want->ids);
  CHECK(fits->ids.size() == 8);
  CHECK(fits->ids[2] == plain.tokenize("fox").value().at(0));

  // Six pieces cannot leave room for any second text: the error is the first's.
  const std::string six = "a b c d e f";
  const std::string message =
      "tokenizer: the first text alone has 6 pieces, more than the 5 a pair may hold; "
      "truncation only_second shortens only the second";
  auto first = tokenizer.encode_first(six, 8);
  REQUIRE_FALSE(first.is_ok());
  CHECK(first.status().message() == message);
  CHECK(tokenizer.encode_pair(six, "x", 8).status().message() == "first text: " + message);
  CHECK(plain.encode_pair(six, "x").status().message() == message);
  // A reranker names the query, not documents[0].
  auto pairs = serve::encode_rerank_pairs(tokenizer, six, {"x", "y"}, 8);
  REQUIRE_FALSE(pairs.is_ok());
  CHECK(pairs.error().param == "query");
  CHECK(pairs.error().message == "query: " + message);
}

}  // namespace normrt::testing
