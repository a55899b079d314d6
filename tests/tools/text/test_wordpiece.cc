// BERT's WordPiece tokenizer against Hugging Face's BertTokenizerFast
// (wordpiece_cases.txt, made by make_wordpiece_fixtures.py with the real
// all-MiniLM-L6-v2 vocab.txt), plus vocabulary validation and hand-checked
// WordPiece splits on a toy vocabulary.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/support/hex.h"
#include "tools/text/basic_tokenizer.h"
#include "tools/text/wordpiece_tokenizer.h"
#include "tools/text/wordpiece_vocab.h"

namespace normrt::text {
namespace {

const std::string kDir = NORMRT_TEXT_FIXTURE_DIR;

std::string ids_string(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += std::to_string(id) + " ";
  return out;
}

BertTokenizer toy_tokenizer(size_t max_length = 512) {
  auto vocab = WordPieceVocab::parse(
      "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\n##a\n##ff\nunaff\nab\n##le\n,\n", "toy");
  REQUIRE_MESSAGE(vocab.is_ok(), vocab.status().message());
  BertTokenizerOptions options;
  options.max_length = max_length;
  options.max_chars_per_word = 9;
  auto tokenizer = BertTokenizer::create(vocab.value(), options);
  REQUIRE_MESSAGE(tokenizer.is_ok(), tokenizer.status().message());
  return tokenizer.value();
}

std::string vocab_error(const std::string& text) {
  auto vocab = WordPieceVocab::parse(text, "v.txt");
  REQUIRE_FALSE(vocab.is_ok());
  return vocab.status().message();
}

}  // namespace

TEST_SUITE("wordpiece") {
  TEST_CASE("ids equal Hugging Face's BertTokenizerFast on 41 tricky sentences") {
    auto vocab = WordPieceVocab::load(kDir + "/minilm_vocab.txt");
    REQUIRE_MESSAGE(vocab.is_ok(), vocab.status().message());
    CHECK(vocab.value().size() == 30522);
    std::ifstream cases(kDir + "/wordpiece_cases.txt");
    REQUIRE(cases);
    std::string line;
    size_t count = 0;
    while (std::getline(cases, line)) {
      std::istringstream fields(line);
      std::string max_length, hex, ids_text;
      std::getline(fields, max_length, '\t');
      std::getline(fields, hex, '\t');
      std::getline(fields, ids_text);
      std::vector<int32_t> want;
      std::istringstream ids_stream(ids_text);
      for (int32_t id; ids_stream >> id;) want.push_back(id);

      BertTokenizerOptions options;
      options.max_length = std::stoul(max_length);
      auto tokenizer = BertTokenizer::create(vocab.value(), options);
      REQUIRE(tokenizer.is_ok());
      const std::string text = test::decode_hex(hex);
      auto got = tokenizer.value().encode(text);
      REQUIRE_MESSAGE(got.is_ok(), got.status().message());
      CHECK_MESSAGE(got.value() == want, "case " << count << " '" << text << "'\n  got  "
                                                 << ids_string(got.value()) << "\n  want "
                                                 << ids_string(want));
      ++count;
    }
    CHECK(count == 41);
  }

  TEST_CASE("WordPiece is greedy longest-match-first with ## continuations") {
    BertTokenizer t = toy_tokenizer();
    // "unaffable": longest first piece "unaff" (9), then "##able" (6).
    CHECK(t.word_pieces("unaffable") == std::vector<int32_t>{9, 6});
    // "unable": "un" then "##able"; "ab" alone is a first piece only.
    CHECK(t.word_pieces("unable") == std::vector<int32_t>{4, 6});
    CHECK(t.word_pieces("able") == std::vector<int32_t>{10, 11});  // "ab" + "##le"
    CHECK(t.word_pieces("unaffx") == std::vector<int32_t>{1});  // unmatched rest: whole word [UNK]
    // "unaff" + "##a", then nothing matches "bl": the whole word is [UNK].
    CHECK(t.word_pieces("unaffabl") == std::vector<int32_t>{1});
    CHECK(t.word_pieces("ablablabl") == std::vector<int32_t>{1});   // unmatched "##abl"
    CHECK(t.word_pieces("unaffablea") == std::vector<int32_t>{1});  // 10 chars > 9: [UNK]
    CHECK(t.word_pieces("ünaff") == std::vector<int32_t>{1});       // pieces end on characters
    auto ids = t.encode("UnAffable, un");
    REQUIRE(ids.is_ok());
    CHECK(ids.value() == std::vector<int32_t>{2, 9, 6, 12, 4, 3});
    // Verbatim only: "[sep]" and "[UNK" are the words [ sep ] [ unk, all [UNK] here.
    auto specials = t.encode("un[SEP]un[sep][UNK");
    REQUIRE(specials.is_ok());
    CHECK(specials.value() == std::vector<int32_t>{2, 4, 3, 4, 1, 1, 1, 1, 1, 3});
  }

  TEST_CASE("truncation keeps [CLS], the first pieces and [SEP]") {
    auto two = toy_tokenizer(2).encode("un un un");
    REQUIRE(two.is_ok());
    CHECK(two.value() == std::vector<int32_t>{2, 3});
    auto four = toy_tokenizer(4).encode("unaffable unable");  // pieces 9 6 4 6
    REQUIRE(four.is_ok());
    CHECK(four.value() == std::vector<int32_t>{2, 9, 6, 3});
    auto empty = toy_tokenizer(4).encode(" \t ");
    REQUIRE(empty.is_ok());
    CHECK(empty.value() == std::vector<int32_t>{2, 3});
  }

  TEST_CASE("the encoding says whether pieces were dropped to fit max_length") {
    struct Case {
      size_t max_length;
      const char* text;
      std::vector<int32_t> ids;
      bool truncated;
    };
    const Case cases[] = {
        {4, "unaffable unable", {2, 9, 6, 3}, true},         // pieces 9 6 4 6: two dropped
        {6, "unaffable unable", {2, 9, 6, 4, 6, 3}, false},  // exactly full
        {5, "unaffable unable", {2, 9, 6, 4, 3}, true},      // the last piece dropped
        {2, "un", {2, 3}, true},
        {2, "", {2, 3}, false},  // empty text: [CLS] [SEP]
        {4, " \t ", {2, 3}, false},
        {3, "un[SEP]", {2, 4, 3}, true},  // a special token dropped
        {4, "un[SEP]", {2, 4, 3, 3}, false},
    };
    for (const Case& c : cases) {
      CAPTURE(c.text);
      CAPTURE(c.max_length);
      auto encoding = toy_tokenizer(c.max_length).encoding(c.text);
      REQUIRE(encoding.is_ok());
      CHECK(encoding.value().ids == c.ids);
      CHECK(encoding.value().truncated == c.truncated);
      auto ids = toy_tokenizer(c.max_length).encode(c.text);  // the same ids
      REQUIRE(ids.is_ok());
      CHECK(ids.value() == c.ids);
    }
  }

  TEST_CASE("the basic tokenizer splits punctuation and CJK, strips accents, lowercases") {
    auto words = basic_tokenize(
        "Héllo,wörld! 北京x\tA\xC2\xA0"
        "b",
        {});
    REQUIRE(words.is_ok());
    CHECK(words.value() ==
          std::vector<std::string>{"hello", ",", "world", "!", "北", "京", "x", "a", "b"});
    BasicTokenizerOptions cased;
    cased.lowercase = false;
    cased.strip_accents = false;
    auto kept = basic_tokenize("Héllo", cased);
    REQUIRE(kept.is_ok());
    CHECK(kept.value() == std::vector<std::string>{"Héllo"});
  }

  TEST_CASE("invalid UTF-8 text is an error naming the byte offset") {
    for (auto [text, offset] : {std::pair<std::string, size_t>{"ab\xFF", 2},
                                {"\xC0\x80", 0},
                                {"ok \xED\xA0\x80", 3},
                                {"[SEP]\xFF", 5},
                                {"x\xE2\x82", 1}}) {
      auto ids = toy_tokenizer().encode(text);
      REQUIRE_FALSE(ids.is_ok());
      CHECK_MESSAGE(
          ids.status().message() == "text: invalid UTF-8 at byte " + std::to_string(offset),
          ids.status().message());
    }
  }

  TEST_CASE("a bad vocabulary is rejected with the line and byte offset") {
    CHECK(vocab_error("a\n\nb\n") == "v.txt: line 2 (byte 2): empty token");
    CHECK(vocab_error("a\nb\na\n") == "v.txt: line 3 (byte 4): token 'a' repeats line 1");
    CHECK(vocab_error("a\nb\xFF\n") == "v.txt: line 2: invalid UTF-8 at byte 3");
    CHECK(vocab_error("") == "v.txt: the vocabulary is empty");
    CHECK(vocab_error(std::string(1025, 'x')).find("token of 1025 bytes") != std::string::npos);
    auto crlf = WordPieceVocab::parse("[UNK]\r\nhi\r\n", "crlf");
    REQUIRE(crlf.is_ok());
    CHECK(crlf.value().find("hi") == 1);
    auto missing = WordPieceVocab::load(kDir + "/no_such_vocab.txt");
    CHECK_FALSE(missing.is_ok());
    auto no_cls = BertTokenizer::create(WordPieceVocab::parse("[UNK]\n[SEP]\n", "v").value(), {});
    REQUIRE_FALSE(no_cls.is_ok());
    CHECK(no_cls.status().message() == "tokenizer: the vocabulary has no [CLS]");
    BertTokenizerOptions one;
    one.max_length = 1;
    CHECK_FALSE(BertTokenizer::create(WordPieceVocab::parse("[UNK]\n", "v").value(), one).is_ok());
  }
}

}  // namespace normrt::text
