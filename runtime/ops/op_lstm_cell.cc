// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kLstmCellSchema = {OpType::kLstmCell, "LstmCell", 5, 12, 1, 3, nullptr, nullptr};

}  // namespace normrt
