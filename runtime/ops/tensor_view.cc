#include "runtime/ops/op.h"

namespace normrt {

size_t TensorView::elements() const {
  size_t count = 1;
  for (uint32_t i = 0; i < rank; ++i) count *= dims[i];
  return count;
}

}  // namespace normrt
