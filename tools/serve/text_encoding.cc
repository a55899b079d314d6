#include "tools/serve/text_encoding.h"

#include <algorithm>

#include "base/status.h"
#include "tools/text/utf8.h"

namespace normrt::serve {

Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case) {
  NORMRT_ASSIGN_OR_RETURN(text::WordPieceVocab vocab, text::WordPieceVocab::load(vocab_path));
  text::BertTokenizerOptions options;
  options.basic.lowercase = !keep_case;
  options.basic.strip_accents = !keep_case;
  options.max_length = model.max_sequence_length() + 1;  // one more: a cut shows
  return text::BertTokenizer::create(std::move(vocab), options);
}

// `tokenizer` yields up to max_length + 1 ids (load_tokenizer), so a cut
// shows as one id too many. Memory: BERT's tokenizer lists every word of
// the text it is given; a long text of short words would cost ~16x its size.
// It is given growing prefixes that end at ASCII whitespace instead — BERT's
// tokenization is the concatenation of its whitespace-separated words', so a
// prefix that already fills max_length + 1 ids gives the whole text's ids.
Expected<EncodedInput> encode_text(const text::BertTokenizer& tokenizer, std::string_view text,
                                   size_t max_length) {
  // Checked whole first, as encode() does, so that the error's byte offset
  // counts from the start and a bad byte past the cut is still refused.
  if (size_t bad = text::utf8_invalid_offset(text); bad != std::string_view::npos) {
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  }
  Expected<std::vector<int32_t>> ids = std::vector<int32_t>{};
  size_t prefix = std::max<size_t>(4096, 16 * max_length);
  bool done = false;
  while (!done && prefix < text.size()) {
    const size_t cut = text.find_first_of(" \t\n\r", prefix);
    if (cut == std::string_view::npos) break;
    ids = tokenizer.encode(text.substr(0, cut));
    done = !ids || ids->size() > max_length;
    prefix = 2 * cut;
  }
  if (!done) ids = tokenizer.encode(text);
  if (!ids) return ids.status();
  EncodedInput encoded;
  encoded.ids = std::move(ids).value();
  if (encoded.ids.size() > max_length) {  // [CLS] + max_length − 1 pieces: cut the last piece
    const int32_t sep = encoded.ids.back();
    encoded.ids.resize(max_length);
    encoded.ids.back() = sep;
    encoded.truncated = true;
  }
  return encoded;
}

}  // namespace normrt::serve
