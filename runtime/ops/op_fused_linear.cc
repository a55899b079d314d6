// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kFusedLinearSchema = {OpType::kFusedLinear, "FusedLinear", 2, 6, 1, 2, nullptr, nullptr};

}  // namespace normrt
