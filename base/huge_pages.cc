#include "base/huge_pages.h"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace normrt {

std::byte* allocate_huge_pages(size_t bytes) {
  if (bytes > SIZE_MAX - kHugePageBytes) return nullptr;
  const size_t size = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  auto* memory = static_cast<std::byte*>(std::aligned_alloc(kHugePageBytes, size));
  if (memory == nullptr) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  ::madvise(memory, size, MADV_HUGEPAGE);  // before the first touch
#endif
  return memory;
}

}  // namespace normrt
