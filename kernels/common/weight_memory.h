#pragma once
// Memory for the weights the runtime packs or rewrites at load (linear
// panels, prepacked matrices): 64-byte aligned and zeroed. Blocks from
// kHugeWeightBytes on live in transparent huge pages (2 MB, MADV_HUGEPAGE):
// blocks up to a chunk share 2 MB-aligned chunks, larger ones get whole huge
// pages of their own. Why: a model file's weights are read through the page
// cache, which Linux maps with huge pages where it can, and a matmul streams
// its weights; the same weights copied into 4 KB pages ran markedly slower
// (a TLB miss every 4 KB; figures in docs/runtime.md). Where huge pages are
// off, the request is a harmless no-op. A chunk is freed with its last block.
#include <cstddef>
#include <memory>

namespace normrt {

/// From this size a block goes into huge pages; smaller ones (biases, norm
/// gains, small layers) are plain aligned allocations.
inline constexpr size_t kHugeWeightBytes = size_t{256} << 10;

/// `bytes` zeroed bytes (at least 1) as above; null if the allocation fails.
/// Thread-safe.
std::shared_ptr<std::byte> allocate_weight_memory(size_t bytes);

}  // namespace normrt
