#include "tools/convert/stored_tokenizer.h"

#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt {

Expected<StoredTokenizer> read_stored_tokenizer(const std::string& dir,
                                                int64_t max_sequence_length) {
  NORMRT_ASSIGN_OR_RETURN(text::FolderTokenizer loaded, text::load_tokenizer_folder(dir));
  text::Tokenizer& tokenizer = loaded.tokenizer;
  const size_t limit = static_cast<size_t>(max_sequence_length);
  const size_t wanted = tokenizer.truncation().max_length;
  if (wanted == 0 || wanted > limit) {
    if (Status s = tokenizer.set_max_length(limit); !s)
      return Status::error("the tokenizer of " + dir + " cannot truncate at the model's " +
                           std::to_string(limit) + " ids: " + s.message());
  }
  StoredTokenizer stored;
  stored.bytes = text::serialize(tokenizer);
  stored.summary = loaded.summary;
  if (tokenizer.truncation().max_length != wanted)
    stored.summary += "; truncating at the model's " + std::to_string(limit) + " ids";
  return stored;
}

}  // namespace normrt
