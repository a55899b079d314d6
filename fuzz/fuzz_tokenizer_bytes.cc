// libFuzzer target: the input bytes as a serialized tokenizer (the form a
// model file stores, tools/text/tokenizer_serialize.h) through
// deserialize(). A tokenizer that loads must encode a few texts (single and
// pair, with and without truncation) to ids inside its vocabulary, and
// re-serialize to bytes that load again and serialize identically.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_tokenizer_checks.h"
#include "tools/text/tokenizer_serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace normrt::text;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  normrt::Expected<Tokenizer> tokenizer = deserialize(bytes);
  if (!tokenizer) {
    FUZZ_CHECK(tokenizer.status().message().rfind("tokenizer bytes: offset ", 0) == 0,
               "an error without an offset: %s", tokenizer.status().message().c_str());
    return 0;
  }
  check_tokenizer(tokenizer.value());
  return 0;
}
