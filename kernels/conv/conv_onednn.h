#pragma once
// 2-D convolution on oneDNN's convolution primitive (direct algorithm),
// for one fixed shape. dnnl.hpp stays out of this header.
//
//   y[n, o, i, j] = act(b[o] + Σ_{c, u, v} W[o, c, u, v] · x[n, c, i·sh + u − pt, j·sw + v − pl])
//
// x outside the image reads as 0 (zero padding). Cross-correlation, as
// PyTorch's nn.Conv2d and Lasagne's dnn.Conv2DDNNLayer; dilation 1, groups 1.
//
// Layouts: x, y NCHW and W OIHW (PyTorch's), dense. oneDNN may prefer a
// blocked layout (nChw16c on AVX-512); then, with `blocked` (the default),
// the primitive runs on it and x and y are reordered around it, into buffers
// of the Context. The weights are reordered into the primitive's layout once,
// at create(). Measured on the ConvPool-CNN-C's layers (docs/cnn.md): NCHW
// in place gets oneDNN 2.6's gemm:jit, 1.7× slower than brgconv on the
// blocked layout, while both reorders of a layer cost ~1-4% of it.
//
// Padding must be smaller than the kernel (a window wholly in the padding
// would read only zeros).
//
// Activation: any of activation.h's, applied by normrt's activation kernel
// in place after the primitive (not as oneDNN's eltwise post-op: its gemm
// convolution ran 11× slower with one, and Winograd takes none).
#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"
#include "kernels/activation/activation.h"

namespace normrt {

struct Conv2dShape {
  size_t batch = 1;
  size_t in_channels = 0, height = 0, width = 0;        ///< x: (batch, in_channels, height, width)
  size_t out_channels = 0, kernel_h = 0, kernel_w = 0;  ///< W: (out, in, kernel_h, kernel_w)
  size_t stride_h = 1, stride_w = 1;
  size_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;

  /// (height + pad_top + pad_bottom − kernel_h) / stride_h + 1, floored;
  /// 0 if the padded image is smaller than the kernel.
  size_t out_height() const;
  size_t out_width() const;
};

/// Every size ≥ 1, the kernel within the padded image, no overflow; the message
/// names the field.
Status conv2d_validate_shape(const Conv2dShape& shape);

enum class ConvAlgorithm {
  kDirect,    ///< oneDNN's direct convolution (brgconv, jit, gemm)
  kWinograd,  ///< Winograd where oneDNN has it for the shape (3×3, stride 1, AVX-512), else direct
};

struct Conv2dOptions {
  bool with_bias = false;
  Activation activation = Activation::kNone;  ///< after the convolution (and bias)
  float alpha = 0.0f;                         ///< leaky_relu's slope
  /// Threads of the primitive (oneDNN's OpenMP threads, onednn_threads.h).
  size_t threads = 1;
  /// Let oneDNN choose the activations' layout and reorder around it.
  bool blocked = true;
  /// kWinograd: oneDNN 2.6's F(4×4, 3×3) kernel where it has one for the
  /// shape (3×3, stride 1, AVX-512, channels a multiple of 16), else direct
  /// (its F(2×2, 3×3) kernel measured slower than direct). Measured on the
  /// ConvPool-CNN-C layers: |error| ≤ 8e-7·Σ|w·x|, about twice the direct
  /// algorithm's, for 2.2-2.4× the speed in isolation (docs/cnn.md); its
  /// weights are 4× larger (6×6 tiles). The activation then runs after the
  /// primitive, as always.
  ConvAlgorithm algorithm = ConvAlgorithm::kDirect;
};

class OneDnnConv2d {
 public:
  /// Creates the primitive and packs `weights` (OIHW; read only here). An
  /// error names the bad shape field or oneDNN's refusal.
  static Expected<std::unique_ptr<OneDnnConv2d>> create(const Conv2dShape& shape,
                                                        const float* weights,
                                                        const Conv2dOptions& options);
  ~OneDnnConv2d();

  /// What one caller needs to run the primitive: oneDNN memory objects, the
  /// blocked copies of x and y, the scratchpad. Made once per caller (a
  /// session); one run() at a time per Context.
  class Context {
   public:
    ~Context();

   private:
    friend class OneDnnConv2d;
    struct State;
    explicit Context(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  Expected<std::unique_ptr<Context>> make_context() const;

  /// y = conv(x) (+ bias, then the activation). x (N, C, H, W) and y
  /// (N, O, OH, OW) dense NCHW, not overlapping; bias (O) iff with_bias.
  /// run() is const: several Contexts may run the same primitive at once.
  Status run(Context& context, const float* x, const float* bias, float* y) const;

  const Conv2dShape& shape() const;
  const Conv2dOptions& options() const;
  /// oneDNN's implementation, e.g. "brgconv:avx512_core" or "x64:gemm:jit".
  const std::string& impl_name() const;
  /// Bytes of the packed weights.
  size_t weight_bytes() const;
  /// Bytes a Context holds (blocked copies of x and y, scratchpad).
  size_t context_bytes() const;

 private:
  struct Impl;
  explicit OneDnnConv2d(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt
