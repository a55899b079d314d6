#include "kernels/common/kernel_variant.h"

namespace normrt {

bool kernel_variant_runnable(const KernelVariant& variant) {
  return isa_runnable(variant.isa) && cpu_has(variant.feature);
}

}  // namespace normrt
