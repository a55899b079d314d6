#pragma once
// Sizes as oneDNN dims (int64), for every oneDNN user in normrt. The callers'
// shape checks keep each size far below 2^63 (convolution and pooling below
// 2^31: kernels/conv/window_2d.h), so the cast is exact.
#include <cstddef>
#include <initializer_list>

#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {

inline dnnl::memory::dims onednn_dims(std::initializer_list<size_t> values) {
  dnnl::memory::dims d;
  for (size_t v : values) d.push_back(static_cast<dnnl::memory::dim>(v));
  return d;
}

}  // namespace normrt
