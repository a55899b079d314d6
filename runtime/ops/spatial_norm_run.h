#pragma once
// Runs the spatial norm kernel (kernels/norm/norm_spatial.h) over an NCHW
// tensor, its channels split over the session's thread pool when there is
// enough work. Shared by the spatial norm ops and the fused Conv2d.
#include "kernels/common/thread_pool.h"
#include "kernels/norm/norm_spatial.h"

namespace normrt {

/// planes validated at plan time; pool may be null (this thread only).
void run_spatial_norm(NormSpatialKernel kernel, const NormParams& params, const NormPlanes& planes,
                      ThreadPool* pool);

}  // namespace normrt
