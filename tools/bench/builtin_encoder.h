#pragma once
// normrt-bench's built-in model: a BERT-style encoder in MiniLM's shape
// (6 layers, FFN = 4 × width, heads of 32 values: 12 heads at width 384,
// vocabulary 30522, 512 positions, GELU, post-norm LayerNorm, mean pooling),
// built in memory by models/transformer/bert_encoder.h from random weights
// with BERT's initial statistics (matrices and embeddings uniform with
// standard deviation 0.02, LayerNorm gains 1 ± 0.1): realistic magnitudes,
// every page written, no subnormals (random_values.h).
#include <cstdint>
#include <string>

#include "base/status.h"
#include "models/transformer/bert_encoder.h"
#include "runtime/graph/graph.h"

namespace normrt::bench {

/// The config of the built-in encoder at `width` (a multiple of 32).
BertConfig builtin_encoder_config(int64_t width);

/// "6 layers, hidden 384, 12 heads, FFN 1536".
std::string describe_encoder(const BertConfig& config);

/// The built-in encoder's graph at `width`, planned for sequences up to
/// `max_sequence_length` (≤ 512); the same `seed` gives the same weights.
Expected<Graph> build_builtin_encoder(int64_t width, int64_t max_sequence_length, uint64_t seed);

}  // namespace normrt::bench
