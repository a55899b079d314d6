#pragma once
// Conv2d's and the pools' attributes "strides" [sh, sw] and "pads" [top,
// left, bottom, right] into their kernel shapes (Conv2dShape, Pool2dShape:
// kernels/conv), which name the window's fields alike.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace normrt {

/// `strides` and `pads` as each op's attribute check left them (2 values
/// ≥ 1, 4 values ≥ 0).
template <class WindowShape>
void set_strides_and_pads(WindowShape& shape, const std::vector<int64_t>& strides,
                          const std::vector<int64_t>& pads) {
  shape.stride_h = static_cast<size_t>(strides[0]);
  shape.stride_w = static_cast<size_t>(strides[1]);
  shape.pad_top = static_cast<size_t>(pads[0]);
  shape.pad_left = static_cast<size_t>(pads[1]);
  shape.pad_bottom = static_cast<size_t>(pads[2]);
  shape.pad_right = static_cast<size_t>(pads[3]);
}

}  // namespace normrt
