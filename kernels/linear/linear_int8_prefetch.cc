// Whether the int8 kernels prefetch streamed weights in software: the
// vendor-measured choice of linear_variants.h, resolved once.

#include "kernels/common/tuning_choice.h"
#include "kernels/linear/linear_variants.h"

namespace normrt::detail {

bool int8_stream_prefetch() {
  static const bool prefetch =
      tuning_choice("NORMRT_LINEAR_PREFETCH", "0", "1", !cpu_vendor_is("AuthenticAMD"));
  return prefetch;
}

}  // namespace normrt::detail
