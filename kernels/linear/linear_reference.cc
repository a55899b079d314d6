// The scalar kernels: the specification of linear_columns(), in plain loops
// with double accumulation. Their packing has panel width 1, i.e. W stays
// row-major (bf16 rows padded to an even k with a zero).

#include <cstdint>

#include "base/bf16.h"
#include "kernels/linear/linear_variants.h"

namespace normrt::detail {
namespace {

float weight_value(const float* row, size_t k) { return row[k]; }
float weight_value(const uint16_t* row, size_t k) { return float_from_bf16(row[k]); }

template <class Weight>
void linear_reference(const LinearArgs& a) {
  for (size_t r = 0; r < a.m; ++r) {
    const float* x = a.x + r * a.x_stride;  // (k)
    float* y = a.y + r * a.y_stride;        // (n)
    for (size_t c = a.n_begin; c < a.n_end; ++c) {
      const auto* w = reinterpret_cast<const Weight*>(a.weights + c * a.panel_bytes);  // W[c] (k)
      double sum = a.bias != nullptr ? a.bias[c] : 0.0;
      for (size_t i = 0; i < a.k; ++i) {
        sum += static_cast<double>(weight_value(w, i)) * static_cast<double>(x[i]);
      }
      y[c] = static_cast<float>(sum);
    }
  }
}

}  // namespace

void linear_f32_scalar(const LinearArgs& args) { linear_reference<float>(args); }
void linear_bf16_scalar(const LinearArgs& args) { linear_reference<uint16_t>(args); }

}  // namespace normrt::detail
