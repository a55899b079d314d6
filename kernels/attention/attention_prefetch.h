#pragma once
// Software prefetch of the next key tile's K and V rows, in address order,
// for the attention kernel's decoder path. Included only by per-ISA
// translation units (through attention_simd.h); the anonymous namespace keeps
// each copy private.
//
// Why: a decoder token reads every K and V row once, which is a stream, but
// the kernel walks a key tile one kv head at a time, so its demand loads jump
// by kv_row_stride (4 KB for 8 kv heads of 128): a new page every 512 bytes,
// which the hardware stream prefetchers do not follow. So the next tile's
// rows are requested whole (every kv head of the task) and in address order,
// spread evenly over the current tile's work so that the requests in flight
// stay few and steady. The choices were measured (bench_attention
// paired_decode, DRAM-resident caches, Zen 4): the tile walk without compute
// took 1.3-1.5× a sequential read, with these requests ~1.0×; in the kernel,
// tiles of 16 keys (the current and the next tile fit L2 together) beat 8,
// 32 and 64, a lead of one tile beat two and four, and prefetcht0 beat
// prefetcht1 (~1.15-1.25× the read floor against ~1.3-1.5×). On an Intel
// Xeon with AMX the opposite: prefetcht1 (or t2) 1.20-1.25×, prefetcht0
// 1.38-1.41×, and again 16 keys (against 8, 12, 20, 24 and 32) and a lead
// of one tile were best; so the level is chosen by vendor. All of that in 4
// KB pages, where a K row of 8 kv heads is a page and the hardware
// prefetchers stop at its end. With K and V in 2 MB pages (the runtime's
// state buffer where the system has them) the same Xeon, no requests
// against prefetcht1 at context 2048: rows of 4 KB (8 kv heads of 128)
// 1.21-1.25× against 1.37-1.41× (prefetcht2 1.30×, every 8th-64th line
// alone 1.65-1.78×); 16 kv heads of 64 (4 KB) 1.28× against 1.39×; 32 of
// 128 (16 KB) 0.98× against 1.36×; but 4 kv heads of 64 (1 KB rows, four
// rows to a page, each walked in strided runs) 1.82× against 1.34×. So
// requests are skipped only for rows of a page or more in huge pages
// (attention_kv_prefetch).

#include <algorithm>
#include <cstddef>

#include "kernels/attention/attention_variants.h"

namespace normrt::detail {
namespace {

class RowPrefetcher {
 public:
  /// K and V rows of `width_bytes` from k and v (the task's first kv head's
  /// columns), `stride_bytes` apart, requested into `level` (or not at all).
  RowPrefetcher(const float* k, const float* v, size_t stride_bytes, size_t width_bytes,
                KvPrefetch level)
      : k_(reinterpret_cast<const char*>(k)),
        v_(reinterpret_cast<const char*>(v)),
        stride_(stride_bytes),
        row_bytes_((width_bytes + 63) / 64 * 64),
        level_(level) {}

  /// Requests whatever of the queued rows is still unrequested, then queues
  /// K rows [first, end) followed by V rows [first, end).
  void queue(size_t first, size_t end) {
    request(remaining_);
    rows_ = end > first ? end - first : 0;
    row_ = k_ + first * stride_;
    end_ = row_ + rows_ * stride_;
    line_ = 0;
    on_values_ = false;
    queued_ = remaining_ = 2 * rows_ * row_bytes_ / 64;
  }

  /// Requests the next `lines` cache lines of the queue (fewer at its end).
  void request(size_t lines) {
    switch (level_) {
      case KvPrefetch::kNone:
        remaining_ = 0;
        break;
      case KvPrefetch::kL1:
        request_at<3>(lines);  // prefetcht0
        break;
      case KvPrefetch::kL2:
        request_at<2>(lines);  // prefetcht1
        break;
    }
  }

  /// Lines queued by the last queue().
  size_t queued() const { return queued_; }

 private:
  // The walk runs on local copies: members updated in the loop would make
  // every step wait on the previous one's store.
  template <int kLocality>
  void request_at(size_t lines) {
    lines = std::min(lines, remaining_);
    remaining_ -= lines;
    const char* row = row_;
    const char* end = end_;
    size_t line = line_;
    bool on_values = on_values_;
    while (lines > 0) {
      const size_t in_row = std::min(lines, (row_bytes_ - line) / 64);
      for (size_t i = 0; i < in_row; ++i) __builtin_prefetch(row + line + 64 * i, 0, kLocality);
      lines -= in_row;
      line += 64 * in_row;
      if (line == row_bytes_) {
        line = 0;
        row += stride_;
        if (row == end && !on_values) {  // K done: the same rows of V
          on_values = true;
          row = v_ + (row - k_) - rows_ * stride_;
          end = row + rows_ * stride_;
        }
      }
    }
    row_ = row;
    end_ = end;
    line_ = line;
    on_values_ = on_values;
  }

  const char* k_;
  const char* v_;
  size_t stride_, row_bytes_;  // row_bytes_: whole cache lines
  KvPrefetch level_;
  // The next line to request: row_ + line_; K rows until end_, then V's.
  const char* row_ = nullptr;
  const char* end_ = nullptr;
  size_t line_ = 0, rows_ = 0;
  bool on_values_ = false;
  size_t queued_ = 0, remaining_ = 0;
};

}  // namespace
}  // namespace normrt::detail
