// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kMeanPoolSchema = {OpType::kMeanPool, "MeanPool", 1, 1, 1, 1, nullptr, nullptr};
const OpSchema kL2NormalizeSchema = {OpType::kL2Normalize, "L2Normalize", 1, 1, 1, 1, nullptr, nullptr};

}  // namespace normrt
