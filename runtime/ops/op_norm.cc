// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kLayerNormSchema = {OpType::kLayerNorm, "LayerNorm", 1, 4, 1, 2, nullptr, nullptr};
const OpSchema kRmsNormSchema = {OpType::kRmsNorm, "RmsNorm", 1, 4, 1, 2, nullptr, nullptr};
const OpSchema kPRmsNormSchema = {OpType::kPRmsNorm, "PRmsNorm", 1, 4, 1, 2, nullptr, nullptr};

}  // namespace normrt
