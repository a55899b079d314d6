// The per-thread scratch of the linear kernels, ISA-free: each int8 call
// quantizes its rows of x into it, a bf16x call rounds them, the f32 GEMM
// keeps running sums there (linear_columns() has no scratch argument, and
// fused_linear's threads each compute their own column slices). Allocation
// happens only when a thread meets a larger call than before: none on a
// steady hot path.

#include <cstdlib>
#include <memory>
#include <new>

#include "kernels/linear/linear_variants.h"

namespace normrt::detail {
namespace {

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};

struct ThreadScratch {
  std::unique_ptr<std::byte, FreeDeleter> data;
  size_t bytes = 0;
};

}  // namespace

std::byte* linear_thread_scratch(size_t bytes) {
  thread_local ThreadScratch scratch;
  if (bytes > scratch.bytes) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;  // grow in pages
    scratch.data.reset(static_cast<std::byte*>(std::aligned_alloc(64, rounded)));
    if (scratch.data == nullptr) throw std::bad_alloc();
    scratch.bytes = rounded;
  }
  return scratch.data.get();
}

}  // namespace normrt::detail
