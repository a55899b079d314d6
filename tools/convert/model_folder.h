#pragma once
// normrt-convert --model DIR: what a Hugging Face or sentence-transformers
// model folder says about its conversion (docs/convert.md, "Model folders").
//   config.json                  the architecture (the registry detects it)
//   model.safetensors            the weights (pytorch_model.bin: refused with
//                                the one-line conversion to safetensors)
//   modules.json                 sentence-transformers' module list: a
//                                Transformer, then a Pooling module, then
//                                optionally Normalize (→ L2); any other module
//                                (Dense, ...) is refused, naming it
//   <Pooling path>/config.json   exactly one of pooling_mode_cls_token,
//                                _mean_tokens, _max_tokens (→ cls, mean, max),
//                                or (sentence-transformers 6) "pooling_mode":
//                                "cls" | "mean" | "max"
//   sentence_bert_config.json    max_seq_length (→ the model's longest
//                                sequence, as sentence-transformers truncates);
//                                without it (sentence-transformers 6) the
//                                tokenizer_config.json's model_max_length
// Tokenizer files (tokenizer.json, vocab.txt, ...) are read by
// tools/text/tokenizer_folder.h; has_tokenizer_files() says whether there
// are any. A plain Hugging Face folder (no modules.json) says no pooling.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace normrt {

struct ModelFolder {
  std::string config_path;
  std::string weights_path;
  std::string transformer_dir;  ///< where config.json and the tokenizer are (DIR or a module's)
  /// "" (the folder does not say: no modules.json), "none", "cls", "mean", "max".
  std::string pooling;
  bool normalize = false;             ///< a Normalize module follows the pooling
  bool pooling_from_modules = false;  ///< a sentence-transformers folder (modules.json)
  int64_t max_sequence_length = 0;    ///< sentence_bert_config.json's; 0: not said
  /// One line per setting taken from the folder ("pooling mean (1_Pooling/config.json)").
  std::vector<std::string> said;
};

/// Reads the folder's sentence-transformers files; every error names the
/// file and the key or module.
Expected<ModelFolder> read_model_folder(const std::string& dir);

/// True if `dir` holds a file a tokenizer can be read from (tokenizer.json,
/// sentencepiece.bpe.model, vocab.json, vocab.txt).
bool has_tokenizer_files(const std::string& dir);

}  // namespace normrt
