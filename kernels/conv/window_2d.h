#pragma once
// Internal to normrt_kernels_conv: what convolution and pooling share about a
// window sliding over a zero-padded image. The output size along one axis is
// floored (PyTorch's ceil_mode=False); every size of their shapes stays below
// 2^31, as oneDNN's dims are int64 and anything near that is a corrupt shape.
#include <cstddef>
#include <initializer_list>
#include <utility>

#include "base/status.h"

namespace normrt {

/// Every size of a convolution or pooling shape is below this.
constexpr size_t kWindowSizeLimit = size_t{1} << 31;

/// The window positions along one axis: (in + pad_a + pad_b − kernel) /
/// stride + 1, or 0 if kernel or stride is 0 or the padded axis is shorter
/// than the kernel.
size_t window_positions(size_t in, size_t pad_a, size_t pad_b, size_t kernel, size_t stride);

/// A size of a shape and its field name, for the messages.
using NamedSize = std::pair<const char*, size_t>;

/// The first of `sizes` that is 0 or kWindowSizeLimit or more, as
/// "<op>: <name> must be at least 1" or "<op>: <name> is too large"; ok if
/// none.
Status check_window_sizes(const char* op, std::initializer_list<NamedSize> sizes);

}  // namespace normrt
