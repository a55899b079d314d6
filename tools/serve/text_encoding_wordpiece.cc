// serve::TextTokenizer over BERT's WordPiece tokenizer of --vocab.
#include "base/status.h"
#include "tools/serve/text_encoding.h"
#include "tools/serve/text_tokenizer_impl.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt::serve {
namespace {

class WordPieceImpl final : public TextTokenizer::Impl {
 public:
  explicit WordPieceImpl(text::BertTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
  Expected<std::vector<int32_t>> ids(std::string_view text) const override {
    return tokenizer_.encode(text);
  }
  // [CLS] + limit − 1 pieces: the last piece gives way to [SEP].
  Expected<std::vector<int32_t>> cut(std::string_view, std::vector<int32_t> all,
                                     size_t limit) const override {
    const int32_t sep = all.back();
    all.resize(limit);
    all.back() = sep;
    return all;
  }
  Status pair_support() const override {
    return Status::error(
        "sentence pairs need the tokenizer stored in the model file (normrt-convert --model "
        "DIR): --vocab's WordPiece has no pair template");
  }
  Expected<std::vector<int32_t>> pair_pieces(std::string_view) const override {
    return pair_support();
  }
  Expected<EncodedPair> pair(std::vector<int32_t>, std::vector<int32_t>, size_t) const override {
    return pair_support();
  }
  size_t own_limit() const override { return 0; }  // the model's (max_length is one more)
  bool splits_at_whitespace() const override { return true; }
  size_t vocab_size() const override { return tokenizer_.vocab().size(); }
  const char* source() const override { return "--vocab"; }

 private:
  text::BertTokenizer tokenizer_;
};

}  // namespace

TextTokenizer TextTokenizer::wordpiece(text::BertTokenizer tokenizer) {
  return TextTokenizer(std::make_shared<WordPieceImpl>(std::move(tokenizer)));
}

Expected<TextTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                       bool keep_case) {
  NORMRT_ASSIGN_OR_RETURN(text::WordPieceVocab vocab, text::WordPieceVocab::load(vocab_path));
  text::BertTokenizerOptions options;
  options.basic.lowercase = !keep_case;
  options.basic.strip_accents = !keep_case;
  options.max_length = model.max_sequence_length() + 1;  // one more: a cut shows
  NORMRT_ASSIGN_OR_RETURN(text::BertTokenizer tokenizer,
                          text::BertTokenizer::create(std::move(vocab), options));
  return TextTokenizer::wordpiece(std::move(tokenizer));
}

}  // namespace normrt::serve
