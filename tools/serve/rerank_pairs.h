#pragma once
// The token ids of POST /v1/rerank: the query tokenized once, then joined
// with each document by the tokenizer's pair template and cut to the model's
// length (TextTokenizer::encode_first, as encode_pair would).
#include <string>
#include <string_view>
#include <vector>

#include "tools/serve/reply.h"
#include "tools/serve/text_encoding.h"

namespace normrt::serve {

/// One pair per document, in order, cut to `max_length` ids. A 400 names the
/// query (param "query") when it does not encode, before any document is
/// read; else the first document that does not ("documents[i]", param
/// "documents").
ApiResult<std::vector<EncodedPair>> encode_rerank_pairs(const TextTokenizer& tokenizer,
                                                        std::string_view query,
                                                        const std::vector<std::string>& documents,
                                                        size_t max_length);

}  // namespace normrt::serve
