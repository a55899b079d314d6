#pragma once
// The body of POST /v1/embeddings as OpenAI's embeddings API defines it:
//   {"input": "text" | ["text", ...] | [id, ...] | [[id, ...], ...],
//    "model"?: "name", "encoding_format"?: "float" | "base64",
//    "dimensions"?: n, "user"?: "..."}
// Any other key is ignored (OpenAI clients may send fields this server does
// not use). Each error is a 400 naming the field ("param") and, for an
// item, its index.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tools/serve/reply.h"

namespace normrt::serve {

/// One input: a text to tokenize, or token ids to run as given.
struct EmbeddingInput {
  bool is_ids = false;
  std::string text;
  std::vector<int32_t> ids;
};

enum class EncodingFormat { kFloat, kBase64 };

struct EmbeddingRequest {
  std::vector<EmbeddingInput> inputs;
  EncodingFormat format = EncodingFormat::kFloat;
  std::optional<size_t> dimensions;
  std::optional<std::string> model;
};

struct EmbeddingRequestLimits {
  size_t max_inputs = 2048;           ///< --max-batch
  size_t max_ids = 512;               ///< ids per token-id input (the model's max S)
  int64_t vocabulary_size = 1 << 30;  ///< token ids must be below it
};

/// Reads `request` (a JSON object); strings are moved out of it.
ApiResult<EmbeddingRequest> parse_embedding_request(nlohmann::json& request,
                                                    const EmbeddingRequestLimits& limits);

}  // namespace normrt::serve
