#include "tools/text/wordpiece_tokenizer.h"

#include "base/status.h"
#include "tools/text/utf8.h"
#include "tools/text/wordpiece_split.h"

namespace normrt::text {

Expected<BertTokenizer> BertTokenizer::create(WordPieceVocab vocab,
                                              const BertTokenizerOptions& options) {
  if (options.max_length < 2)
    return Status::error("tokenizer: max_length = " + std::to_string(options.max_length) +
                         " leaves no room for [CLS] and [SEP]");
  BertTokenizer tokenizer(std::move(vocab), options);
  struct Special {
    const char* token;
    int32_t* id;
  };
  for (Special special : {Special{"[CLS]", &tokenizer.cls_}, Special{"[SEP]", &tokenizer.sep_},
                          Special{"[UNK]", &tokenizer.unk_}}) {
    *special.id = tokenizer.vocab_.find(special.token);
    if (*special.id < 0)
      return Status::error(std::string("tokenizer: the vocabulary has no ") + special.token);
  }
  return tokenizer;
}

std::vector<int32_t> BertTokenizer::word_pieces(const std::string& word) const {
  std::vector<int32_t> pieces;
  wordpiece_split(vocab_, word, "##", options_.max_chars_per_word, unk_, pieces);
  return pieces;
}

Status BertTokenizer::append_pieces(std::string_view text, size_t limit, std::vector<int32_t>& ids,
                                    bool* truncated) const {
  NORMRT_ASSIGN_OR_RETURN(auto words, basic_tokenize(text, options_.basic));
  for (const std::string& word : words)
    for (int32_t id : word_pieces(word)) {
      if (ids.size() == limit) {
        *truncated = true;
        return Status::ok();
      }
      ids.push_back(id);
    }
  return Status::ok();
}

Expected<std::vector<int32_t>> BertTokenizer::encode(std::string_view text) const {
  NORMRT_ASSIGN_OR_RETURN(WordPieceEncoding result, encoding(text));
  return std::move(result.ids);
}

Expected<WordPieceEncoding> BertTokenizer::encoding(std::string_view text) const {
  // Checked whole here so that an error's byte offset counts from the start.
  if (size_t bad = utf8_invalid_offset(text); bad != std::string_view::npos)
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  WordPieceEncoding encoded;
  std::vector<int32_t>& ids = encoded.ids;
  ids.push_back(cls_);
  const size_t limit = options_.max_length - 1;  // room for [SEP]
  size_t offset = 0;
  while (offset <= text.size()) {
    // The earliest special token from `offset` (the longest at a tie).
    size_t found = std::string_view::npos, length = 0;
    for (const std::string& special : options_.special_tokens) {
      size_t at = text.find(special, offset);
      if (at == std::string_view::npos || vocab_.find(special) < 0) continue;
      if (at < found || (at == found && special.size() > length))
        found = at, length = special.size();
    }
    const size_t end = std::min(found, text.size());
    NORMRT_RETURN_IF_ERROR(
        append_pieces(text.substr(offset, end - offset), limit, ids, &encoded.truncated));
    if (found == std::string_view::npos) break;
    if (ids.size() < limit)
      ids.push_back(vocab_.find(text.substr(found, length)));
    else
      encoded.truncated = true;
    offset = found + length;
  }
  ids.push_back(sep_);
  return encoded;
}

}  // namespace normrt::text
