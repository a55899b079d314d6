#include "runtime/ops/spatial_norm_run.h"

namespace normrt {
namespace {

// Below this many floats a wake-up of the pool (~1-14 µs) costs more than it saves.
constexpr size_t kMinParallelFloats = 32 * 1024;

}  // namespace

void run_spatial_norm(NormSpatialKernel kernel, const NormParams& params, const NormPlanes& planes,
                      ThreadPool* pool) {
  const size_t floats = planes.images * planes.channels * planes.plane;
  if (pool == nullptr || pool->size() == 1 || floats < kMinParallelFloats) {
    kernel(params, planes);
    return;
  }
  pool->run([&](size_t thread, PoolBarrier&) {
    for (size_t image = 0; image < planes.images; ++image) {
      const Range channels = split_range(planes.channels, pool->size(), thread);
      if (channels.empty()) continue;
      const size_t offset = (image * planes.channels + channels.begin) * planes.plane;
      NormPlanes part = planes;
      part.images = 1;
      part.channels = channels.size();
      part.src = planes.src + offset;
      part.dst = planes.dst + offset;
      part.gain = planes.gain ? planes.gain + channels.begin : nullptr;
      part.bias = planes.bias ? planes.bias + channels.begin : nullptr;
      kernel(params, part);
    }
  });
}

}  // namespace normrt
