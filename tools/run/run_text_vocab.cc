// normrt-run --text --vocab: BERT WordPiece from a vocab.txt.
#include "base/status.h"
#include "tools/run/run_text.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt::run {

Expected<TextIds> text_ids_with_vocab(const RunOptions& options, const Model& model) {
  NORMRT_ASSIGN_OR_RETURN(auto vocab, text::WordPieceVocab::load(options.vocab));
  text::BertTokenizerOptions tokenizer_options;
  tokenizer_options.basic.lowercase = !options.keep_case;
  tokenizer_options.basic.strip_accents = !options.keep_case;
  tokenizer_options.max_length = model.max_sequence_length();
  NORMRT_ASSIGN_OR_RETURN(auto tokenizer,
                          text::BertTokenizer::create(std::move(vocab), tokenizer_options));
  NORMRT_ASSIGN_OR_RETURN(auto encoding, tokenizer.encoding(options.text));
  return TextIds{std::move(encoding.ids), {}, encoding.truncated, "--vocab"};
}

}  // namespace normrt::run
