// Not implemented yet: null functions make graph_validate() report the op as unsupported.
#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema kConcatSchema = {OpType::kConcat, "Concat", 1, 64, 1, 1, nullptr, nullptr};
const OpSchema kSplitSchema = {OpType::kSplit, "Split", 1, 1, 1, 64, nullptr, nullptr};
const OpSchema kSliceSchema = {OpType::kSlice, "Slice", 1, 1, 1, 1, nullptr, nullptr};

}  // namespace normrt
