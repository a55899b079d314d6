#pragma once
// The competitor of normrt's int8 linear layer in bench_linear_int8: oneDNN's
// matmul with s8 activations and s8 weights, f32 bias and f32 output,
//   y (m, n) = (x_q (m, k) · W_qᵀ) · scale[n] + bias,
// scale[n] = sx · sw[n] given once at create() (oneDNN 2.6 scales per output
// column or per tensor, not per row: one x scale for all m rows). x is
// quantized by the caller before the timing (oneDNN has no dynamic
// quantization): oneDNN's best case. dnnl.hpp stays out of this header.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/common/status.h"

namespace normrt::bench {

class OneDnnInt8Matmul {
 public:
  /// w_q: (n, k) row-major int8; scales: (n) per output column (sx · sw[n]).
  static Expected<std::unique_ptr<OneDnnInt8Matmul>> create(const int8_t* w_q, const float* scales,
                                                            size_t n, size_t k, size_t m);
  ~OneDnnInt8Matmul();

  /// y (m, n) = x_q (m, k) · W_qᵀ · scale + bias; rows contiguous.
  Status run(const int8_t* x_q, float* y, const float* bias);

  const std::string& impl_name() const;
  size_t weight_bytes() const;

 private:
  struct Impl;
  explicit OneDnnInt8Matmul(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt::bench
