#pragma once
// 2-D max and average pooling on oneDNN's pooling primitive, for one fixed
// shape, on NCHW tensors in place (no reorders: measured in docs/cnn.md).
//
//   max:  y[n, c, i, j] = max over the window of x (padding never wins)
//   avg:  y[n, c, i, j] = Σ window / count, count = kernel_h·kernel_w
//         (kAvgIncludePad: PyTorch's count_include_pad=True, padding reads as
//         0) or the window's elements inside the image (kAvgExcludePad)
//   window (i, j): rows i·sh − pt .. + kh − 1, columns j·sw − pl .. + kw − 1
// Output sizes are floored (PyTorch's ceil_mode=False, Lasagne's
// ignore_border=True). A global average pool is kAvg with the kernel the
// whole image, stride 1, no padding.
#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

namespace normrt {

enum class PoolKind { kMax, kAvgIncludePad, kAvgExcludePad };

struct Pool2dShape {
  size_t batch = 1, channels = 0, height = 0, width = 0;  ///< x: (batch, channels, height, width)
  size_t kernel_h = 0, kernel_w = 0;
  size_t stride_h = 1, stride_w = 1;
  size_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  size_t out_height() const;  ///< (height + pads − kernel_h) / stride_h + 1, or 0
  size_t out_width() const;
};

/// Every size ≥ 1, padding at most half the kernel (PyTorch's rule: no
/// window lies wholly in the padding), no overflow; the message names the field.
Status pool2d_validate_shape(const Pool2dShape& shape);

class OneDnnPool2d {
 public:
  static Expected<std::unique_ptr<OneDnnPool2d>> create(const Pool2dShape& shape, PoolKind kind,
                                                        size_t threads);
  ~OneDnnPool2d();

  /// A caller's memory objects and stream; one run() at a time per Context.
  class Context {
   public:
    ~Context();

   private:
    friend class OneDnnPool2d;
    struct State;
    explicit Context(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  Expected<std::unique_ptr<Context>> make_context() const;

  /// y (N, C, OH, OW) = pool(x (N, C, H, W)); dense NCHW, not overlapping.
  Status run(Context& context, const float* x, float* y) const;

  const Pool2dShape& shape() const;
  const std::string& impl_name() const;

 private:
  struct Impl;
  explicit OneDnnPool2d(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt
