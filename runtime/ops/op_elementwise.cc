// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kAddSchema = {OpType::kAdd, "Add", 2, 2, 1, 1, nullptr, nullptr};
const OpSchema kMulSchema = {OpType::kMul, "Mul", 2, 2, 1, 1, nullptr, nullptr};

}  // namespace normrt
