// The tokenizers' parts on hand-checked inputs: GPT-2 pre-tokenization (the
// expected pieces are what Hugging Face's Split with GPT-2's regex gives),
// the byte map, BPE merge order, Unigram's Viterbi, truncation lengths,
// added-token matching, and the readers' errors.
#include <doctest/doctest.h>

#include "tools/text/added_tokens.h"
#include "tools/text/byte_level_bpe.h"
#include "tools/text/byte_to_unicode.h"
#include "tools/text/gpt2_pretokenizer.h"
#include "tools/text/precompiled_charsmap.h"
#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_json.h"
#include "tools/text/unigram_model.h"

namespace normrt::text {
namespace {

std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view piece : gpt2_pretokenize(text)) out.emplace_back(piece);
  return out;
}

using Strings = std::vector<std::string>;
using Ids = std::vector<int32_t>;

std::string json_error(const std::string& text) {
  auto tokenizer = parse_tokenizer_json(text, "t.json");
  REQUIRE_FALSE(tokenizer.is_ok());
  return tokenizer.status().message();
}

const char* kWordPieceJson = R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}},
  "normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"}})";

}  // namespace

TEST_SUITE("tokenizer parts") {
  TEST_CASE("GPT-2 pre-tokenization matches the regex, alternative by alternative") {
    CHECK(pieces("Hello world") == Strings{"Hello", " world"});
    CHECK(pieces("  hi") == Strings{" ", " hi"});  // the run leaves one space to the word
    CHECK(pieces("hi  ") == Strings{"hi", "  "});  // a final run stays whole
    CHECK(pieces("a\n\nb") == Strings{"a", "\n", "\n", "b"});  // only ' ' joins a word
    CHECK(pieces(" \n x") == Strings{" \n", " x"});
    CHECK(pieces("don't") == Strings{"don", "'t"});
    CHECK(pieces("I'M") == Strings{"I", "'", "M"});  // contractions are lower case only
    CHECK(pieces("we'll they've") == Strings{"we", "'ll", " they", "'ve"});
    CHECK(pieces("x 123 !!?") == Strings{"x", " 123", " !!?"});
    CHECK(pieces("3.14") == Strings{"3", ".", "14"});
    CHECK(pieces("a\u00a0b") == Strings{"a", "\u00a0", "b"});
    CHECK(pieces("e\u0301") == Strings{"e", "\u0301"});  // a combining mark is "other"
    CHECK(pieces("").empty());
  }

  TEST_CASE("the byte map sends printable bytes to themselves and the rest above U+00FF") {
    CHECK(byte_to_unicode('A') == U'A');
    CHECK(byte_to_unicode(' ') == U'\u0120');   // Ġ
    CHECK(byte_to_unicode('\n') == U'\u010A');  // Ċ
    CHECK(byte_to_unicode(0) == U'\u0100');
    CHECK(byte_to_unicode(0x7F) == U'\u0121');
    CHECK(byte_to_unicode(0xAD) == U'\u0143');
    CHECK(byte_to_unicode(0xFF) == U'\u00FF');
    std::vector<bool> seen(512, false);
    for (int b = 0; b < 256; ++b) {
      const char32_t c = byte_to_unicode(static_cast<unsigned char>(b));
      REQUIRE(c < 512);
      CHECK_FALSE(seen[c]);
      seen[c] = true;
    }
  }

  TEST_CASE("BPE merges the lowest-ranked pair first, leftmost on a tie") {
    // Merges by rank: "b c" (0), "a b" (1), "a bc" (2).
    auto bpe = ByteLevelBpe::create({"a", "b", "c", "bc", "ab", "abc"},
                                    {{"b", "c"}, {"a", "b"}, {"a", "bc"}}, {}, "toy");
    REQUIRE_MESSAGE(bpe.is_ok(), bpe.status().message());
    Ids ids;
    bpe.value().encode_word("abc", ids);  // b c → bc first, then a bc
    CHECK(ids == Ids{5});
    ids.clear();
    bpe.value().encode_word("abab", ids);  // two "a b" at rank 1
    CHECK(ids == Ids{4, 4});
    ids.clear();
    bpe.value().encode_word("cab", ids);
    CHECK(ids == Ids{2, 4});
    ids.clear();
    bpe.value().encode_word("xa",
                            ids);  // 'x' is not in the vocabulary and there is no unk: dropped
    CHECK(ids == Ids{0});
    auto missing = ByteLevelBpe::create({"a", "b"}, {{"a", "b"}}, {}, "toy");
    REQUIRE_FALSE(missing.is_ok());
    CHECK(missing.status().message() == "toy: merge 0 ('a' 'b'): 'ab' is not in the vocabulary");
  }

  TEST_CASE("Unigram's Viterbi takes the best total score and fuses unknowns") {
    UnigramOptions options;
    options.metaspace = false;
    options.unk_id = 0;
    auto model = UnigramModel::create(
        {{"<unk>", 0.0}, {"a", -1.0}, {"b", -1.0}, {"ab", -1.5}, {"abc", -4.0}, {"c", -2.0}},
        options, "toy");
    REQUIRE(model.is_ok());
    Ids ids;
    model.value().encode_piece("ab", ids);  // "ab" (−1.5) beats "a" "b" (−2)
    CHECK(ids == Ids{3});
    ids.clear();
    model.value().encode_piece("abc", ids);  // "ab" "c" (−3.5) beats "abc" (−4)
    CHECK(ids == Ids{3, 5});
    ids.clear();
    model.value().encode_piece("xyab", ids);  // x y unknown, fused into one <unk>
    CHECK(ids == Ids{0, 3});
  }

  TEST_CASE("longest_first truncation shortens the longer, as Hugging Face does") {
    auto lengths = [](size_t budget, size_t a, size_t b) {
      truncated_lengths(budget, TruncationStrategy::kLongestFirst, &a, &b);
      return std::pair<size_t, size_t>{a, b};
    };
    CHECK(lengths(3, 5, 5) == std::pair<size_t, size_t>{1, 2});
    CHECK(lengths(3, 6, 1) == std::pair<size_t, size_t>{2, 1});
    CHECK(lengths(3, 1, 6) == std::pair<size_t, size_t>{1, 2});
    CHECK(lengths(4, 6, 3) == std::pair<size_t, size_t>{2, 2});
    CHECK(lengths(10, 4, 5) == std::pair<size_t, size_t>{4, 5});
    size_t a = 8, b = 3;
    truncated_lengths(6, TruncationStrategy::kOnlyFirst, &a, &b);
    CHECK((a == 3 && b == 3));
  }

  TEST_CASE("added tokens: leftmost then longest, lstrip and rstrip take the white space") {
    std::vector<AddedToken> tokens = {
        {"<m>", 7, true, false}, {"<mask>", 8, true, false}, {"[X]", 9, false, true}};
    auto segments = split_added_tokens("a  <mask> b [X]  c<m>", tokens);
    REQUIRE(segments.size() == 6);
    CHECK(segments[0].text == "a");
    CHECK(segments[1].token_id == 8);
    CHECK(segments[2].text == " b ");
    CHECK(segments[3].token_id == 9);
    CHECK(segments[4].text == "c");  // rstrip took "  "
    CHECK(segments[5].token_id == 7);
  }

  TEST_CASE("a malformed precompiled charsmap is refused, a hostile trie never read past") {
    CHECK_FALSE(PrecompiledCharsmap::parse("").is_ok());
    CHECK_FALSE(PrecompiledCharsmap::parse(std::string("\x08\x00\x00\x00", 4)).is_ok());
    CHECK_FALSE(PrecompiledCharsmap::parse(std::string("\x03\x00\x00\x00xyz", 7)).is_ok());
    // A one-unit trie whose offset points far outside: lookups find nothing.
    auto map = PrecompiledCharsmap::parse(std::string("\x04\x00\x00\x00\xFF\xFF\xFF\xFF", 8));
    REQUIRE(map.is_ok());
    CHECK(map.value().normalize("abc") == "abc");
  }

  TEST_CASE("tokenizer.json: what is not supported is refused with its path") {
    CHECK(json_error("[1]") == "t.json: expected an object, found array");
    CHECK(json_error("{").find("t.json: not JSON at byte 1") == 0);
    CHECK(json_error(std::string(100, '[')).find("nests deeper than 64") != std::string::npos);
    CHECK(json_error(R"({"model": {"type": "WordLevel"}})") ==
          "t.json: model.type 'WordLevel' is not supported (WordPiece, BPE or Unigram)");
    CHECK(json_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                         "pre_tokenizer": {"type": "Whitespace"}})") ==
          "t.json: pre_tokenizer: BPE is read with ByteLevel only, found Whitespace");
    CHECK(json_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1},
                         "pre_tokenizer": {"type": "ByteLevel"}})") ==
          "t.json: model.dropout: BPE dropout (random merges) is not supported");
    CHECK(json_error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 5}, "merges": []},
                         "pre_tokenizer": {"type": "ByteLevel"}})") ==
          "t.json: model.vocab: token 'b' has id 5; ids must run from 0 to 1");
    CHECK(json_error(R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", 0]]},
                         "normalizer": {"type": "Replace", "pattern": {"Regex": "[0-9]+"}, "content": ""}})")
              .find("t.json: normalizer.pattern.Regex: '[0-9]+' is not one of the expressions") ==
          0);
    CHECK(json_error(R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", "x"]]}})") ==
          "t.json: model.vocab[0][1]: expected a number, found string");
    std::string no_clean = kWordPieceJson;
    no_clean.replace(no_clean.find("\"BertNormalizer\""), 16,
                     "\"BertNormalizer\", \"clean_text\": false");
    CHECK(json_error(no_clean) == "t.json: normalizer.clean_text: false is not supported");
    auto ok = parse_tokenizer_json(kWordPieceJson, "t.json");
    REQUIRE_MESSAGE(ok.is_ok(), ok.status().message());
    auto ids = ok.value().encode("A a b");
    REQUIRE(ids.is_ok());
    CHECK(ids.value().ids == Ids{1, 1, 0});  // no post-processor: no specials
  }

  TEST_CASE("merges.txt: a #version line, then two tokens a line") {
    auto merges = parse_merges_txt("#version: 0.2\nĠ t\nh e\n", "m.txt");
    REQUIRE(merges.is_ok());
    CHECK(merges.value().size() == 2);
    CHECK(merges.value()[0].first == "Ġ");
    auto bad = parse_merges_txt("a b\nabc\n", "m.txt");
    REQUIRE_FALSE(bad.is_ok());
    CHECK(bad.status().message() ==
          "m.txt: line 2 (byte 4): expected two tokens separated by one space");
  }

  TEST_CASE("a folder without tokenizer files is an error naming what was looked for") {
    auto missing = load_tokenizer_folder(std::string(NORMRT_TEXT_FIXTURE_DIR) + "/no_such_folder");
    REQUIRE_FALSE(missing.is_ok());
    CHECK(missing.status().message().find("no tokenizer.json, sentencepiece.bpe.model") !=
          std::string::npos);
  }

  TEST_CASE("invalid UTF-8 is an error naming the byte, whatever the kind") {
    auto tokenizer = parse_tokenizer_json(kWordPieceJson, "t.json");
    REQUIRE(tokenizer.is_ok());
    auto ids = tokenizer.value().encode("ok \xFF");
    REQUIRE_FALSE(ids.is_ok());
    CHECK(ids.status().message() == "text: invalid UTF-8 at byte 3");
    auto pair = tokenizer.value().encode_pair("a", "b\xC0\x80");
    REQUIRE_FALSE(pair.is_ok());
    CHECK(pair.status().message() == "second text: text: invalid UTF-8 at byte 1");
  }
}

}  // namespace normrt::text
