#pragma once
// What the m > 1 paths of the linear kernels (f32/bf16 GemmSimd, bf16
// activations, int8) share about walking rows and weights:
//
//   RowBlocks        m rows cut into ceil(m / kMaxRows) blocks of as equal a
//                    size as possible (8 rows: 4 + 4, not 6 + 2, whose 2-row
//                    tile would leave the multiply pipes idle).
//   ChunkPrefetch    while the row blocks of a chunk of a panel pass over it,
//                    the next chunk's weights are requested, each block a
//                    share: the block with phase b of `period` requests the
//                    lines of the steps ≡ b (mod period), so the blocks
//                    together request every line once, spread over the
//                    chunk's whole time. Inside a model a layer's weights
//                    come from L3 or DRAM (the other layers passed through
//                    the caches since its last call), and without the
//                    requests the chunk's reads and its multiply-adds took
//                    turns (docs/bench_kernels.md, "GEMM prefetch").
// Included only by the per-ISA translation units.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace normrt::detail {
namespace {

template <size_t kMaxRows>
struct RowBlocks {
  explicit RowBlocks(size_t m)
      : count((m + kMaxRows - 1) / kMaxRows), base(m / count), extra(m % count) {}
  size_t begin(size_t b) const { return b * base + std::min(b, extra); }
  size_t rows(size_t b) const { return base + (b < extra ? 1 : 0); }
  size_t count, base, extra;
};

/// One row block's share of the next chunk, in steps of kStepBytes (one k
/// step of the panel). At each step of its walk over the current chunk, the
/// same step of the next chunk is requested if it is this block's turn. Past
/// a shorter next chunk the requests touch the data after it, harmless (a
/// prefetch never faults), and no bounds check is kept in the tile's
/// registers.
template <size_t kStepBytes>
class ChunkPrefetch {
  static_assert(kStepBytes % 64 == 0, "steps of whole cache lines");

 public:
  /// No share.
  ChunkPrefetch() = default;
  /// Block `block` of `count` while the chunk [begin, end) runs, as byte
  /// offsets in a panel of `panel_bytes` whose weights end at `data_end`:
  /// the next chunk is this panel's next one, or the next panel's first. A
  /// block with no step of its own (block ≥ the chunk's steps) has no share.
  ChunkPrefetch(size_t begin, size_t end, size_t data_end, size_t panel_bytes, size_t block,
                size_t count)
      : ChunkPrefetch(end < data_end ? end - begin : panel_bytes - begin, end - begin, block,
                      count) {}
  /// Block `block` of `count` walking a chunk of `chunk_bytes` whose next
  /// weights lie `distance` bytes ahead (for the chunk-major order: the same
  /// chunk of the next panel).
  static ChunkPrefetch ahead(size_t distance, size_t chunk_bytes, size_t block, size_t count) {
    return ChunkPrefetch(distance, chunk_bytes, block, count);
  }
  bool active() const { return active_; }

  /// At each step of the walk, `here` being the step's weights.
  [[gnu::always_inline]] inline void step(const void* here) {
    if (countdown_ == 0) {
      countdown_ = period_;
      // As an integer: past the last panel the address leaves the weights.
      const uintptr_t ahead = reinterpret_cast<uintptr_t>(here) + distance_;
#pragma GCC unroll 16
      for (size_t line = 0; line < kStepBytes; line += 64) {
        __builtin_prefetch(reinterpret_cast<const char*>(ahead + line), 0, 2);
      }
    }
    --countdown_;
  }

 private:
  ChunkPrefetch(size_t distance, size_t chunk_bytes, size_t block, size_t count)
      : distance_(distance),
        countdown_(block),
        period_(count),
        active_(block < (chunk_bytes + kStepBytes - 1) / kStepBytes) {}

  size_t distance_ = 0;
  size_t countdown_ = 0;
  size_t period_ = 1;
  bool active_ = false;
};

}  // namespace
}  // namespace normrt::detail
