#include "tools/run/run_text.h"

#include <string>

#include "base/status.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt::run {

// BERT WordPiece from --vocab: run_text_vocab.cc (its header defines another
// text::Encoding than tokenizer.h's).
Expected<TextIds> text_ids_with_vocab(const RunOptions& options, const Model& model);

namespace {

// The stored tokenizer truncates at the model's length (normrt-convert sets
// it so); whether it cut is told by an untruncated copy.
Expected<TextIds> with_stored(const std::string_view bytes, const RunOptions& options,
                              const Model& model) {
  Expected<text::Tokenizer> read = text::deserialize(bytes);
  if (!read)
    return Status::error(options.model +
                         ": its stored tokenizer does not read: " + read.status().message());
  text::Tokenizer tokenizer = std::move(read).value();
  const size_t limit = model.max_sequence_length();
  const auto encode = [&](const text::Tokenizer& t) {
    return options.has_text_pair ? t.encode_pair(options.text, options.text_pair)
                                 : t.encode(options.text);
  };
  text::Tokenizer whole = tokenizer;
  NORMRT_RETURN_IF_ERROR(whole.set_max_length(0));
  NORMRT_ASSIGN_OR_RETURN(text::Encoding all, encode(whole));
  const size_t stored_limit = tokenizer.truncation().max_length;
  if (stored_limit == 0 || stored_limit > limit)
    NORMRT_RETURN_IF_ERROR(tokenizer.set_max_length(limit));
  if (all.ids.size() <= tokenizer.truncation().max_length)
    return TextIds{std::move(all.ids), std::move(all.type_ids), false,
                   "the model file's tokenizer"};
  NORMRT_ASSIGN_OR_RETURN(text::Encoding cut, encode(tokenizer));
  return TextIds{std::move(cut.ids), std::move(cut.type_ids), true, "the model file's tokenizer"};
}

}  // namespace

Expected<TextIds> text_ids(const RunOptions& options, const Model& model) {
  if (!options.vocab.empty()) return text_ids_with_vocab(options, model);
  const std::string_view stored = model.tokenizer_bytes();
  if (stored.empty())
    return Status::error("--text: " + options.model +
                         " stores no tokenizer; give --vocab (the model's vocab.txt), or convert "
                         "with normrt-convert --model DIR (or --tokenizer DIR) to store one");
  return with_stored(stored, options, model);
}

}  // namespace normrt::run
