#pragma once
// The pieces of tokenizer.json around the model (tokenizer_json.cc): each
// reads one JSON value (nullptr when absent or null) and names `path` in
// its errors.
#include <string>
#include <vector>

#include "tools/text/basic_tokenizer.h"
#include "tools/text/json_access.h"
#include "tools/text/tokenizer.h"
#include "tools/text/unigram_model.h"

namespace normrt::text {

/// BertNormalizer's flags (strip_accents null follows lowercase).
Expected<BasicTokenizerOptions> read_bert_normalizer(const Json* normalizer,
                                                     const std::string& path);
/// ByteLevel (alone or the only member of a Sequence) → add_prefix_space.
Expected<bool> read_byte_level_pre_tokenizer(const Json* pre, const std::string& path);
/// The normalizers of a Unigram pipeline, Sequence flattened.
Expected<std::vector<NormalizerStep>> read_normalizers(const Json* normalizer,
                                                       const std::string& path);
/// Metaspace, WhitespaceSplit, or a Sequence of WhitespaceSplit then Metaspace.
Status read_metaspace_pre_tokenizer(const Json* pre, const std::string& path,
                                    UnigramOptions& options);
Expected<std::vector<AddedToken>> read_added_tokens_json(const Json* tokens,
                                                         const std::string& path);
/// Special tokens named by content resolve through `added`, then the model.
Expected<PostProcessor> read_post_processor_json(const Json* post, const TokenModel& model,
                                                 const std::vector<AddedToken>& added,
                                                 const std::string& path);
/// Absent: no truncation (max_length 0).
Expected<Truncation> read_truncation_json(const Json* truncation, const std::string& path);

/// Standard base64 (with '=' padding); an error names the offset.
Expected<std::string> decode_base64(std::string_view text, const std::string& path);

}  // namespace normrt::text
