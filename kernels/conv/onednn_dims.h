#pragma once
// Internal to normrt_kernels_conv: sizes as oneDNN dims (int64). The shapes'
// checks (window_2d.h) keep every size below 2^31, so the cast is exact.
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
