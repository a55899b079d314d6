// The scalar int8 kernel: the specification of linear_columns() for int8
// weights (linear_int8.h) in plain loops. Panel width 1: each column's
// panel holds its k weights (padded to groups of 4), its scale and its sum.
// x is quantized by quantize_int8_activations(), the accumulation of
// (qx − z)·qw is exact (int64), and the dequantization is done in double and
// rounded once.

#include <cstdint>
#include <cstring>

#include "kernels/linear/linear_int8.h"
#include "kernels/linear/linear_variants.h"

namespace normrt::detail {

void linear_int8_scalar(const LinearArgs& a) {
  const size_t padded = (a.k + 3) / 4 * 4;  // where a column's scale follows its weights
  auto* q = reinterpret_cast<int8_t*>(linear_thread_scratch(a.k));
  for (size_t r = 0; r < a.m; ++r) {
    const Int8Activations xq = quantize_int8_activations(a.x + r * a.x_stride, a.k, q);  // (k)
    const double sx = xq.scale;
    float* y = a.y + r * a.y_stride;  // (n)
    for (size_t c = a.n_begin; c < a.n_end; ++c) {
      const std::byte* panel = a.weights + c * a.panel_bytes;
      const auto* w = reinterpret_cast<const int8_t*>(panel);  // W[c] (k)
      float sw;
      std::memcpy(&sw, panel + padded, sizeof sw);
      int64_t acc = 0;
      for (size_t i = 0; i < a.k; ++i) acc += (int64_t{q[i]} - xq.zero_point) * w[i];
      const double bias = a.bias != nullptr ? a.bias[c] : 0.0;
      y[c] = static_cast<float>(static_cast<double>(acc) * sx * sw + bias);
    }
  }
}

}  // namespace normrt::detail
