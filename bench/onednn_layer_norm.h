#pragma once
// The competitor: oneDNN's layer_normalization_forward primitive (forward
// inference, f32, with scale and shift), behind a small interface so that
// dnnl.hpp stays out of the benchmark driver.
//
// oneDNN 2.6 has no RMSNorm primitive; the benchmark uses this LayerNorm as the
// stand-in competitor for RMSNorm and pRMSNorm too.

#include <cstddef>
#include <memory>
#include <string>

#include "base/status.h"

namespace normrt::bench {

/// Makes oneDNN run on one thread. Call at the start of main, before any other
/// oneDNN call. Returns a description for the report, e.g. "OpenMP, 1 thread".
std::string onednn_use_one_thread();

/// "oneDNN 2.6.3 (OpenMP)", from the loaded library.
std::string onednn_version_string();

/// One primitive for one shape, created once; run() executes it on a stream.
class OneDnnLayerNorm {
 public:
  /// Borrows the buffers, which must outlive this object.
  /// src, dst: (rows, n), contiguous rows, dst separate from src.
  /// scale, shift: (n). y = (x - mean) / sqrt(var + eps) * scale + shift.
  static Expected<std::unique_ptr<OneDnnLayerNorm>> create(size_t rows, size_t n, float eps,
                                                           const float* src, float* dst,
                                                           const float* scale, const float* shift);
  ~OneDnnLayerNorm();

  /// Executes the primitive and waits for it. Returns an error instead of
  /// throwing if oneDNN fails.
  Status run();

 private:
  struct Impl;
  explicit OneDnnLayerNorm(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt::bench
