#pragma once
// Large buffers in transparent huge pages (2 MB): the packed weights and a
// session's activation arena, state (KV caches) and workspace. Why: a
// matmul streams its weights and a decoder token streams its KV cache, and
// in 4 KB pages every 4 KB of such a stream costs a TLB miss (figures:
// docs/runtime.md for weights, docs/kernels_attention.md for the KV cache).
// Where the system's huge pages are off (or only "never"), the request is a
// harmless no-op.
#include <cstddef>

namespace normrt {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/// Whether this system hands out transparent huge pages on request: its
/// mode (/sys/kernel/mm/transparent_hugepage/enabled) is "always" or
/// "madvise". Read once.
bool huge_pages_available();

/// `bytes` rounded up to whole 2 MB pages, 2 MB-aligned, asked to be backed
/// by huge pages (MADV_HUGEPAGE, before the first touch); not zeroed. Null if
/// the allocation fails. Release with std::free.
std::byte* allocate_huge_pages(size_t bytes);

}  // namespace normrt
