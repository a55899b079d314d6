#pragma once
// The step order of a recurrent cell over a sequence, forward or reversed,
// with the input projections computed a chunk of steps at a time (the
// kernels' ln_*_project_inputs GEMM, m = chunk rows) into a buffer of
// `chunk` rows: no allocation, no copy of x.
#include <algorithm>
#include <cstddef>

#include "base/status.h"

namespace normrt::seq_op {

/// For steps = S rows of x, calls project(first_row, rows) for each chunk of
/// at most `chunk` (≥ 1) consecutive rows, then step(t, t − first_row) for
/// every row t of the chunk: t = 0, 1, ..., S − 1 overall, or S − 1, ..., 0
/// when `reverse` (chunks taken from the end, rows visited backwards). Stops
/// at the first error.
template <class Project, class Step>
Status for_each_step(size_t steps, size_t chunk, bool reverse, Project&& project, Step&& step) {
  for (size_t done = 0; done < steps;) {
    const size_t rows = std::min(chunk, steps - done);
    const size_t first = reverse ? steps - done - rows : done;
    NORMRT_RETURN_IF_ERROR(project(first, rows));
    for (size_t i = 0; i < rows; ++i) {
      const size_t row = reverse ? rows - 1 - i : i;
      NORMRT_RETURN_IF_ERROR(step(first + row, row));
    }
    done += rows;
  }
  return Status::ok();
}

}  // namespace normrt::seq_op
