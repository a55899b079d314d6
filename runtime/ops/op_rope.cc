// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kRopeSchema = {OpType::kRope, "Rope", 1, 1, 1, 1, nullptr, nullptr};

}  // namespace normrt
