#include "kernels/conv/window_2d.h"

#include <string>

namespace normrt {

size_t window_positions(size_t in, size_t pad_a, size_t pad_b, size_t kernel, size_t stride) {
  const size_t padded = in + pad_a + pad_b;
  if (kernel == 0 || stride == 0 || padded < kernel) return 0;
  return (padded - kernel) / stride + 1;
}

Status check_window_sizes(const char* op, std::initializer_list<NamedSize> sizes) {
  for (auto [name, value] : sizes) {
    if (value == 0) return Status::error(std::string(op) + ": " + name + " must be at least 1");
    if (value >= kWindowSizeLimit)
      return Status::error(std::string(op) + ": " + name + " is too large");
  }
  return Status::ok();
}

}  // namespace normrt
