// Every tokenizer kind against Hugging Face `tokenizers` on the tricky
// corpus (tokenizer_corpus.py; expected ids from make_tokenizer_fixtures.py
// with tiny tokenizers trained there, and the real MiniLM vocab.txt).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/support/hex.h"
#include "tests/tools/text/tokenizer_cases.h"
#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_serialize.h"
#include "tools/text/wordpiece_model.h"

namespace normrt::text {
namespace {

const std::string kDir = NORMRT_TEXT_FIXTURE_DIR;
const std::string kFixtures = kDir + "/fixtures/";

Tokenizer load(const std::string& folder) {
  auto loaded = load_tokenizer_folder(kFixtures + folder);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  return loaded.value().tokenizer;
}

size_t count_reference(const std::vector<TokenizerCase>& cases, const std::string& reference) {
  size_t n = 0;
  for (const TokenizerCase& c : cases) n += c.reference == reference;
  return n;
}

void check_folder(const std::string& folder, const std::string& cases_name,
                  size_t sentencepiece_cases = 0) {
  const auto cases = read_cases(kFixtures + cases_name + ".cases");
  REQUIRE(cases.size() >= 50);
  CHECK(count_reference(cases, "sentencepiece_library") == sentencepiece_cases);
  CHECK(count_reference(cases, "") == cases.size() - sentencepiece_cases);
  CHECK(check_cases(load(folder), cases, folder) == cases.size());
}

}  // namespace

TEST_SUITE("tokenizers equal Hugging Face") {
  TEST_CASE("byte-level BPE from tokenizer.json (RoBERTa post-processing, <mask> lstrip)") {
    check_folder("roberta_bpe", "roberta_bpe");
  }
  TEST_CASE("byte-level BPE from vocab.json + merges.txt gives the same ids") {
    check_folder("roberta_bpe_legacy", "roberta_bpe");
  }
  TEST_CASE("byte-level BPE with add_prefix_space and no special tokens (GPT-2 style)") {
    check_folder("gpt2_bpe_prefix", "gpt2_bpe_prefix");
  }
  TEST_CASE("WordPiece from tokenizer.json, lowercased and stripped of accents") {
    check_folder("bert_uncased", "bert_uncased");
  }
  TEST_CASE("WordPiece from tokenizer.json, cased") { check_folder("bert_cased", "bert_cased"); }
  TEST_CASE("WordPiece from MPNet's tokenizer.json (<s> </s> specials, <s> A </s></s> B </s>)") {
    check_folder("mpnet_wordpiece", "mpnet_wordpiece");
  }
  TEST_CASE("Unigram from an XLM-R style tokenizer.json (precompiled charsmap, Metaspace)") {
    check_folder("xlmr_unigram", "xlmr_unigram");
  }
  TEST_CASE(
      "Unigram from the tokenizer.json transformers converts a .model into (WhitespaceSplit)") {
    check_folder("xlmr_unigram_converted", "xlmr_unigram_converted");
  }
  TEST_CASE("Unigram with NFKC, Lowercase, Strip, Replace, prepend_scheme first, byte_fallback") {
    check_folder("unigram_options", "unigram_options");
  }
  TEST_CASE("SentencePiece model through libsentencepiece with fairseq ids") {
    // One case follows libsentencepiece, not Hugging Face: half-width kana
    // with voiced marks (a 6-byte grapheme cluster), docs/tokenizers.md.
    check_folder("xlmr_unigram_spm", "xlmr_unigram_spm", 1);
  }
}

}  // namespace normrt::text

namespace normrt::text {

TEST_CASE(
    "WordPiece through the Tokenizer equals BertTokenizerFast with the real MiniLM vocab.txt") {
  auto vocab = WordPieceVocab::load(kDir + "/minilm_vocab.txt");
  REQUIRE_MESSAGE(vocab.is_ok(), vocab.status().message());
  auto model = WordPieceModel::create(std::move(vocab).value(), {});
  REQUIRE(model.is_ok());
  auto shared = std::make_shared<const WordPieceModel>(std::move(model).value());
  std::vector<AddedToken> specials;
  for (const char* name : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
    specials.push_back({name, shared->token_id(name)});
  auto tokenizer = Tokenizer::create(shared, specials, PostProcessor::bert(101, 102), {});
  REQUIRE(tokenizer.is_ok());
  // wordpiece_cases.txt: max_length TAB text-hex TAB ids (one sequence).
  std::ifstream in(kDir + "/wordpiece_cases.txt");
  REQUIRE(in);
  std::vector<TokenizerCase> cases;
  for (std::string line; std::getline(in, line);) {
    const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    TokenizerCase c;
    c.max_length = std::stoul(line.substr(0, tab1));
    c.first = test::decode_hex(line.substr(tab1 + 1, tab2 - tab1 - 1));
    std::istringstream ids(line.substr(tab2 + 1));
    for (int32_t id; ids >> id;) c.ids.push_back(id);
    c.type_ids.assign(c.ids.size(), 0);
    cases.push_back(std::move(c));
  }
  REQUIRE(cases.size() == 41);
  CHECK(check_cases(tokenizer.value(), cases, "minilm vocab.txt") == cases.size());
}

}  // namespace normrt::text
