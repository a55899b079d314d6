// allocate_aligned(), the session's buffers (activations, state, workspace,
// inputs): zeroed and 64-byte aligned at every size, 2 MB-aligned (huge
// pages) from 2 MB on, every byte writable, and null rather than an
// exception when the size cannot be allocated.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>

#include "base/huge_pages.h"
#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

bool all_zero(const std::byte* p, size_t n) {
  return std::all_of(p, p + n, [](std::byte b) { return b == std::byte{0}; });
}

}  // namespace

TEST_CASE("session memory: zeroed, aligned, huge pages from 2 MB, null when too large") {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{1000},
                       kHugePageBytes - 1, kHugePageBytes, 3 * kHugePageBytes + 5}) {
    CAPTURE(bytes);
    AlignedBytes memory = allocate_aligned(bytes);
    REQUIRE(memory != nullptr);
    const auto address = reinterpret_cast<uintptr_t>(memory.get());
    CHECK(address % 64 == 0);
    if (bytes >= kHugePageBytes) CHECK(address % kHugePageBytes == 0);
    CHECK(all_zero(memory.get(), std::max<size_t>(bytes, 1)));
    std::fill_n(memory.get(), bytes, std::byte{0x5a});  // every byte is the caller's
  }
  CHECK(allocate_aligned(SIZE_MAX) == nullptr);
  CHECK(allocate_aligned(SIZE_MAX - kHugePageBytes + 1) == nullptr);
  CHECK(allocate_huge_pages(SIZE_MAX) == nullptr);
}

}  // namespace normrt
