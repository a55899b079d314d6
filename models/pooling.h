#pragma once
// The sentence-embedding head an encoder builder appends to its last hidden
// state h [S, H]: pooled over the sequence into "embedding" [1, H], then
// optionally L2-normalized (sentence-transformers' Pooling and Normalize
// modules, batch 1 without padding).
//   cls   Slice(h, rows [0, 1))          the first token's row
//   mean  MeanPool(h)                    the mean of each column
//   max   MeanPool(h, mode "max")        the maximum of each column
// then L2Normalize when `normalize`.
#include <cstdint>
#include <string>

#include "base/status.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {

struct PoolingOptions {
  /// "none" (no head: the encoder's last hidden state is the output), "cls",
  /// "mean" or "max".
  std::string mode = "none";
  /// L2-normalize the pooled row (a Normalize module).
  bool normalize = true;
};

/// An error naming the mode unless it is one of the above.
Status check_pooling(const PoolingOptions& pooling);

/// Appends the head to `h` [S, width] (mode not "none") and returns the
/// pooled output, named "embedding" [1, width]. Records the metadata
/// "pooling": "cls", "mean", "max", with "_l2" appended when normalized
/// (mean + L2 is "mean_l2", as files written before CLS and max pooling say).
TensorId add_pooling_head(GraphBuilder& builder, TensorId h, int64_t width,
                          const PoolingOptions& pooling);

/// The "pooling" metadata value of `pooling`: "none", "cls", "cls_l2", ...
std::string pooling_metadata(const PoolingOptions& pooling);

}  // namespace normrt
