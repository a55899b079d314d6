// libFuzzer target: the input bytes as a Hugging Face tokenizer.json through
// parse_tokenizer_json() (the JSON depth pre-scan, nlohmann's parser, every
// model / normalizer / pre-tokenizer / post-processor reader, the
// precompiled charsmap and base64). A tokenizer that loads goes through
// fuzz_tokenizer_checks.h. nlohmann throws on misuse: an exception escaping
// here terminates, which the fuzzer reports as a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_tokenizer_checks.h"
#include "tools/text/tokenizer_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace normrt::text;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  normrt::Expected<Tokenizer> tokenizer = parse_tokenizer_json(text, "tokenizer.json");
  if (!tokenizer) return 0;
  check_tokenizer(tokenizer.value());
  return 0;
}
