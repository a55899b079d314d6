#include "tools/serve/rerank_pairs.h"

namespace normrt::serve {

ApiResult<std::vector<EncodedPair>> encode_rerank_pairs(const TextTokenizer& tokenizer,
                                                        std::string_view query,
                                                        const std::vector<std::string>& documents,
                                                        size_t max_length) {
  Expected<TextTokenizer::PairFirst> first = tokenizer.encode_first(query, max_length);
  if (!first)
    return ApiError{400, "invalid_request", "query: " + first.status().message(), "query"};
  std::vector<EncodedPair> pairs;
  pairs.reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    Expected<EncodedPair> pair = first->pair(documents[i]);
    if (!pair) {
      return ApiError{400, "invalid_request",
                      "documents[" + std::to_string(i) + "]: " + pair.status().message(),
                      "documents"};
    }
    pairs.push_back(std::move(pair).value());
  }
  return pairs;
}

}  // namespace normrt::serve
