#include "models/pooling.h"

namespace normrt {

Status check_pooling(const PoolingOptions& pooling) {
  const std::string& m = pooling.mode;
  if (m == "none" || m == "cls" || m == "mean" || m == "max") return Status::ok();
  return Status::error("pooling '" + m + "': expected one of none, cls, mean, max");
}

std::string pooling_metadata(const PoolingOptions& pooling) {
  if (pooling.mode == "none") return "none";
  return pooling.mode + (pooling.normalize ? "_l2" : "");
}

TensorId add_pooling_head(GraphBuilder& b, TensorId h, int64_t width,
                          const PoolingOptions& pooling) {
  const Shape row = {1, width};
  TensorId pooled = kNoTensor;
  if (pooling.mode == "cls") {
    pooled = b.node(OpType::kSlice, "pooling.cls", {h}, {row},
                    {{"axis", int64_t{0}}, {"begin", int64_t{0}}, {"end", int64_t{1}}});
  } else if (pooling.mode == "max") {
    pooled = b.node(OpType::kMeanPool, "pooling.max", {h}, {row}, {{"mode", std::string("max")}});
  } else {
    pooled = b.node(OpType::kMeanPool, "pooling.mean", {h}, {row});
  }
  if (pooling.normalize)
    pooled = b.node(OpType::kL2Normalize, "pooling.normalize", {pooled}, {row});
  b.rename(pooled, "embedding");
  return pooled;
}

}  // namespace normrt
