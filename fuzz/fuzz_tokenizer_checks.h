#pragma once
// What the tokenizer fuzz targets check of a tokenizer that loaded: texts
// encode to ids inside the vocabulary, type ids match, truncation holds,
// and serialize → deserialize → serialize is a fixed point.
#include <string>

#include "fuzz/fuzz_check.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt::text {

inline void check_encoding(const Tokenizer& tokenizer, const Expected<Encoding>& encoding) {
  if (!encoding) return;  // e.g. only_first truncation that cannot fit: an error, fine
  const Encoding& e = encoding.value();
  FUZZ_CHECK(e.ids.size() == e.type_ids.size(), "%zu ids, %zu type ids", e.ids.size(),
             e.type_ids.size());
  for (int32_t id : e.ids)
    FUZZ_CHECK(id >= 0 && static_cast<size_t>(id) < tokenizer.model().vocab_size(),
               "id %d outside the vocabulary of %zu", id, tokenizer.model().vocab_size());
  const size_t max_length = tokenizer.truncation().max_length;
  FUZZ_CHECK(max_length == 0 || e.ids.size() <= max_length, "%zu ids for max_length %zu",
             e.ids.size(), max_length);
}

inline void check_tokenizer(Tokenizer tokenizer) {
  static const char* const kTexts[] = {"",
                                       " ",
                                       "Hello, world! don't we'll",
                                       "  Café  naïve \t\n",
                                       "我爱北京 😀 e\xCC\x81 <mask> [SEP]",
                                       "\xEF\xBD\xB6\xEF\xBE\x9E x \xE2\x96\x81 </s>"};
  for (const char* text : kTexts) check_encoding(tokenizer, tokenizer.encode(text));
  check_encoding(tokenizer, tokenizer.encode_pair(kTexts[2], kTexts[4]));
  const std::string bytes = serialize(tokenizer);
  Expected<Tokenizer> copy = deserialize(bytes);
  FUZZ_CHECK(copy.is_ok(), "a serialized tokenizer does not load: %s",
             copy.status().message().c_str());
  FUZZ_CHECK(serialize(copy.value()) == bytes, "serialize is not a fixed point");
  if (tokenizer.set_max_length(5).is_ok()) {
    check_encoding(tokenizer, tokenizer.encode(kTexts[2]));
    check_encoding(tokenizer, tokenizer.encode_pair(kTexts[2], kTexts[3]));
  }
}

}  // namespace normrt::text
