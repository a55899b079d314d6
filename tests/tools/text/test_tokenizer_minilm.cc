// The real all-MiniLM-L6-v2 tokenizer.json (scripts/fetch_minilm.sh puts it
// in NORMRT_MINILM_DIR) against Hugging Face `tokenizers` on the tricky
// corpus (fixtures/minilm_tokenizer_json.cases, make_tokenizer_fixtures.py
// --minilm DIR), and the folder's max_length: sentence-transformers' 256.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "tests/tools/text/tokenizer_cases.h"
#include "tools/text/tokenizer_folder.h"

namespace normrt::text {

TEST_CASE("the real MiniLM tokenizer.json gives Hugging Face's ids") {
  const char* dir = std::getenv("NORMRT_MINILM_DIR");
  const std::string folder = dir ? dir : "";
  if (folder.empty() || !std::ifstream(folder + "/tokenizer.json")) {
    MESSAGE("skipped: no tokenizer.json in NORMRT_MINILM_DIR ('"
            << folder << "'); scripts/fetch_minilm.sh downloads it");
    return;
  }
  auto loaded = load_tokenizer_folder(folder);
  REQUIRE_MESSAGE(loaded.is_ok(), loaded.status().message());
  MESSAGE(loaded.value().summary);
  CHECK(loaded.value().tokenizer.kind() == TokenizerKind::kWordPiece);
  CHECK(loaded.value().tokenizer.model().vocab_size() == 30522);
  if (std::ifstream(folder + "/sentence_bert_config.json"))
    CHECK(loaded.value().tokenizer.truncation().max_length == 256);
  const auto cases =
      read_cases(std::string(NORMRT_TEXT_FIXTURE_DIR) + "/fixtures/minilm_tokenizer_json.cases");
  REQUIRE(cases.size() >= 50);
  CHECK(check_cases(loaded.value().tokenizer, cases, "minilm tokenizer.json") == cases.size());
}

}  // namespace normrt::text
