#pragma once
// A Hugging Face model folder → Tokenizer. What it reads, in order of
// preference (the first present wins):
//   tokenizer.json                      any kind tokenizer_json.h reads
//   sentencepiece.bpe.model             SentencePiece, fairseq ids, <s> A </s>
//                                       (XLM-R, CamemBERT)
//   vocab.json + merges.txt             byte-level BPE; RoBERTa's <s> A </s> when
//                                       the vocabulary has <s> and </s>, else GPT-2's
//                                       bare ids
//   vocab.txt                           BERT's WordPiece, [CLS] A [SEP]
// tokenizer_config.json supplies what the fallbacks lack (do_lower_case,
// strip_accents, tokenize_chinese_chars, add_prefix_space, tokenizer_class).
// max_length: the caller's, else sentence_bert_config.json's max_seq_length
// (what sentence-transformers truncates at), else tokenizer.json's
// truncation, else tokenizer_config.json's model_max_length (when below
// 10^6; Hugging Face writes 10^30 for "unset"), else 512.
#include <string>
#include <vector>

#include "tools/text/tokenizer.h"

namespace normrt::text {

struct FolderTokenizer {
  Tokenizer tokenizer;
  std::vector<std::string> files;  ///< the files read, in order
  std::string summary;             ///< one line: kind, vocabulary, flags, max_length and its source
};

/// `max_length` 0: from the folder's files. Errors name the file.
Expected<FolderTokenizer> load_tokenizer_folder(const std::string& dir, size_t max_length = 0);

/// A file's bytes (at most 256 MiB); errors name the path.
Expected<std::string> read_text_file(const std::string& path);
/// merges.txt: an optional "#version" line, then "a b" per line.
Expected<std::vector<std::pair<std::string, std::string>>> parse_merges_txt(
    std::string_view text, const std::string& source);

}  // namespace normrt::text
