#include "base/huge_pages.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace normrt {

bool huge_pages_available() {
  static const bool available = [] {
    std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string text;
    std::getline(mode, text);  // e.g. "always [madvise] never": the selected one in brackets
    return text.find("[always]") != std::string::npos ||
           text.find("[madvise]") != std::string::npos;
  }();
  return available;
}

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
