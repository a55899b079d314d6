// The fused linear driver: the matmul, then residual add, row statistics,
// normalization and activation while its outputs are hot (whole rows through
// the norm kernel; column blocks for pRMSNorm's single pass and for thread
// slices). ISA-free: it calls the matmul kernel the weights were packed for
// and the norm kernel and building blocks of the same ISA through function
// pointers.

#include "kernels/linear/fused_linear.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "kernels/common/extent.h"
#include "kernels/common/tuning_choice.h"
#include "kernels/linear/linear_variants.h"
#include "kernels/norm/norm_row_ops.h"
#include "kernels/norm/norm_variants.h"

namespace normrt {
namespace {

using detail::Moments;
using detail::NormRowOps;
using detail::NormScale;

// m = 1: output columns per block, the unit of residual add and statistics
// while the block is in L1 (2 KB of outputs); rounded to whole panels.
constexpr size_t kBlockColumns = 512;
// m > 1: rows per block so that a block's outputs stay in L2 until normalized.
// Weights bigger than that are re-read by every block, which pays only from
// kMinRowsPerWeightPass rows a block and while x fits L2 (beyond, the GEMM's
// chunk-major order reads x once per chunk; blocks would undo it); otherwise
// the rows go in one block (measured: docs/bench_kernels.md).
constexpr size_t kRowBlockBytes = 512 * 1024;
constexpr size_t kMinRowsPerWeightPass = 128;
// Most participants a fused call uses (stack slots for their statistics).
constexpr size_t kMaxThreads = 64;
// m = 1 splits the columns across threads from this many weight bytes
// (kFusedLinearMinParallelBytes unless NORMRT_GEMV_THREADS=off).
size_t& min_parallel_weight_bytes() {
  static size_t bytes = tuning_choice("NORMRT_GEMV_THREADS", "off", "on", true)
                            ? kFusedLinearMinParallelBytes
                            : SIZE_MAX;
  return bytes;
}
// m > 1 splits the columns across threads from this many multiply-adds
// (m · n · k): below, the pool's wake-up and join cost more than the halved
// matmul saves. Measured with bench_threads (docs/bench_kernels.md).
size_t min_parallel_work = kFusedLinearMinParallelWork;

// Statistics of part of one row.
struct PartStats {
  Moments moments;      // LayerNorm
  double sum_sq = 0.0;  // RMSNorm family: Σ t² over the part's covered columns
};

PartStats combine(const PartStats& a, const PartStats& b) {
  return {detail::combine(a.moments, b.moments), a.sum_sq + b.sum_sq};
}

// One validated call, lowered for the per-row code.
struct FusedCall {
  const PackedWeights& w;
  const float* x;
  size_t x_stride;
  const LinearEpilogue& e;
  float* y;
  size_t y_stride;
  const NormRowOps& ops;
  NormParams params;  // e.norm, or a no-op map's conventions without normalization
  size_t stat_count;  // columns the statistic covers: n, or floor(p·n)

  size_t n() const { return w.n(); }
  // Nothing after the matmul but its bias.
  bool plain() const {
    return !e.normalize && e.activation == Activation::kNone && e.residual == nullptr &&
           e.sum_dst == nullptr;
  }
  bool layer_norm() const { return e.normalize && params.kind == NormKind::kLayerNorm; }
  const float* residual(size_t row) const {
    return e.residual ? e.residual + row * e.residual_stride : nullptr;
  }
  // Where t = x·Wᵀ + b + residual is kept until it is normalized.
  float* t(size_t row) const { return e.sum_dst ? e.sum_dst + row * e.sum_stride : y_row(row); }
  float* y_row(size_t row) const { return y + row * y_stride; }

  // y[rows][c0, c1) = x · Wᵀ + b for rows [row, row + rows). Row blocks
  // (row_block_order) sum in the same order whatever their row count, so the
  // result does not depend on how many threads shared the rows.
  void matmul(size_t row, size_t rows, size_t c0, size_t c1, bool row_block_order) const {
    detail::LinearArgs args = detail::linear_args(w, x + row * x_stride, rows, x_stride, y_row(row),
                                                  y_stride, c0, c1, e.bias);
    args.row_block_order = row_block_order;
    w.variant().kernel(args);
  }
};

// Columns [begin, end) of one row: their matmul, residual add and statistics,
// and later their normalization.
class RowPart {
 public:
  RowPart(const FusedCall& call, size_t row, size_t begin)
      : call_(call), row_(row), begin_(begin), end_(begin) {}

  // Computes columns [end(), c1) and absorbs them.
  void produce(size_t c1) {
    call_.matmul(row_, 1, end_, c1, false);
    absorb(c1);
  }

  // Adds the residual to the computed columns [end(), c1) (t) and gathers
  // their statistics.
  void absorb(size_t c1) {
    const size_t c0 = end_;
    end_ = c1;
    if (c0 == c1) return;
    const float* y = call_.y_row(row_) + c0;
    const float* r = call_.residual(row_) ? call_.residual(row_) + c0 : nullptr;
    float* t = call_.t(row_) + c0;
    if (call_.layer_norm()) {
      double dev = 0.0, dev_sq = 0.0;
      call_.ops.sum_deviations(y, r, t, c1 - c0, 0.0f, &dev, &dev_sq);
      sum_dev_ += dev;
      sum_dev_sq_ += dev_sq;
      return;
    }
    // RMSNorm family: the statistic covers columns below stat_count only.
    const size_t covered = call_.e.normalize ? std::clamp(call_.stat_count, c0, c1) : c0;
    if (covered > c0) sum_sq_ += call_.ops.sum_squares(y, r, t, covered - c0);
    if (r != nullptr && covered < c1) {
      call_.ops.add(y + (covered - c0), r + (covered - c0), t + (covered - c0), c1 - covered);
    }
  }

  size_t end() const { return end_; }

  // The statistics of the part. LayerNorm gathered Σ t and Σ t² (shift 0);
  // if |mean| >> std makes them cancel, it sweeps the part again around its
  // mean (the corrected two-pass algorithm).
  PartStats finish() const {
    PartStats stats;
    stats.sum_sq = sum_sq_;
    if (!call_.layer_norm() || end_ == begin_) return stats;
    const size_t count = end_ - begin_;
    stats.moments = detail::moments_from_deviations(count, 0.0, sum_dev_, sum_dev_sq_);
    if (std::isfinite(sum_dev_) && detail::shift_was_poor(stats.moments, 0.0)) {
      const float better = static_cast<float>(stats.moments.mean);
      double dev = 0.0, dev_sq = 0.0;
      call_.ops.sum_deviations(call_.t(row_) + begin_, nullptr, nullptr, count, better, &dev,
                               &dev_sq);
      stats.moments = detail::moments_from_deviations(count, better, dev, dev_sq);
    }
    return stats;
  }

  // y[c0, c1) = act(norm(t[c0, c1))).
  void normalize(const NormScale& map, size_t c0, size_t c1) const {
    const LinearEpilogue& e = call_.e;
    // Bias or residual alone: y already holds t, and the map is the identity.
    const bool identity = !e.normalize && e.activation == Activation::kNone && !e.sum_dst;
    if (c0 == c1 || identity) return;
    call_.ops.normalize(call_.params, map, e.activation, e.activation_alpha, call_.t(row_) + c0,
                        call_.y_row(row_) + c0, c1 - c0,
                        e.normalize && e.gain ? e.gain + c0 : nullptr,
                        e.normalize && e.norm_bias ? e.norm_bias + c0 : nullptr);
  }

 private:
  const FusedCall& call_;
  size_t row_, begin_, end_;
  double sum_dev_ = 0.0, sum_dev_sq_ = 0.0, sum_sq_ = 0.0;
};

// The affine map of a row from its statistics; false if they left the range
// where float sums are exact (the row then takes the double fallback).
bool row_map(const FusedCall& call, const PartStats& stats, NormScale* map) {
  if (!call.e.normalize) {
    *map = NormScale{};  // y = act(t · 1)
    return true;
  }
  if (call.layer_norm()) {
    const Moments& m = stats.moments;
    *map = detail::norm_scale(call.params, m.mean, m.m2 / m.count);
    return m.safe;
  }
  *map = detail::norm_scale(call.params, 0.0, stats.sum_sq / call.stat_count);
  return detail::sum_is_safe(stats.sum_sq);
}

// The double reference over a finished row of t.
void fallback_row(const FusedCall& call, size_t row) {
  const LinearEpilogue& e = call.e;
  float* y = call.y_row(row);
  detail::norm_row_reference(call.params, call.n(), call.stat_count, call.t(row), nullptr, nullptr,
                             e.gain, e.norm_bias, y);
  activation_kernel_for(call.w.isa())(e.activation, e.activation_alpha, y, y, call.n());
}

size_t block_end(const FusedCall& call, size_t c, size_t limit) {
  return std::min(limit, linear_column_boundary(call.w, c + kBlockColumns));
}

// y = act(norm(t)) for rows [row, row + rows) of a finished matmul, by the
// norm kernel itself: with the residual add, sum_dst, the float map and
// the activation inlined, it costs about half of what the building blocks
// do per row (docs/bench_kernels.md).
void normalize_rows(const FusedCall& call, size_t row, size_t rows) {
  const LinearEpilogue& e = call.e;
  NormRows block;
  block.rows = rows;
  block.n = call.n();
  block.src = block.dst = call.y_row(row);
  block.src_stride = block.dst_stride = call.y_stride;
  block.residual = call.residual(row);
  block.residual_stride = e.residual_stride;
  block.sum_dst = e.sum_dst ? call.t(row) : nullptr;
  block.sum_stride = e.sum_stride;
  block.gain = e.gain;
  block.bias = e.norm_bias;
  call.ops.rows(call.params, block, e.activation, e.activation_alpha);
}

// m = 1 on one thread. LayerNorm and RMSNorm: the whole row, then the norm
// kernel (see fused_linear.h). Otherwise the columns the statistic needs
// come first (the first floor(p·n) for pRMSNorm, none without a norm); every
// later block is normalized as soon as it exists.
void run_row_serial(const FusedCall& call) {
  if (call.plain()) return call.matmul(0, 1, 0, call.n(), false);
  if (call.e.normalize && call.params.kind != NormKind::kPRmsNorm) {
    call.matmul(0, 1, 0, call.n(), false);
    normalize_rows(call, 0, 1);
    return;
  }
  const size_t n = call.n();
  size_t first = 0;
  if (call.e.normalize) first = linear_column_boundary(call.w, call.stat_count);  // pRMSNorm
  RowPart part(call, 0, 0);
  while (part.end() < first) part.produce(block_end(call, part.end(), first));
  NormScale map;
  const bool safe = row_map(call, part.finish(), &map);
  while (part.end() < n) {
    const size_t c0 = part.end();
    part.produce(block_end(call, c0, n));
    if (safe) part.normalize(map, c0, part.end());
  }
  if (safe) {
    part.normalize(map, 0, first);
  } else {
    fallback_row(call, 0);
  }
}

// Pieces per thread when an m > 1 call's work is split (column slices of the
// matmul, row slices of the norm). They, and m = 1's slices, are claimed
// (ThreadPool::run_tasks), not assigned: each thread takes its own share
// first, the same every call, so that each core keeps re-reading its part of
// the weights, and a worker still waiting for a CPU when the caller has
// taken every piece is not waited for; several pieces each, so that a worker
// preempted in the middle of one (a loaded machine) holds back only that
// one. A norm's barrier is therefore a second round of tasks.
constexpr size_t kSlicesPerThread = 4;

// m = 1 on several threads: one panel-aligned column slice per thread (four
// streamed the weights less well: docs/bench_kernels.md, "m = 1 on two
// threads"), each computed with its statistics; with a norm, the row's map
// from every slice's statistics (in slice order, whichever thread computed
// them), then a second round normalizes the slices.
void run_row_parallel(const FusedCall& call, ThreadPool& pool, size_t threads) {
  const auto columns_of = [&](size_t i) {
    return split_range(call.n(), threads, i, call.w.panel_width());
  };
  PartStats stats[kMaxThreads];
  pool.run_tasks(threads, [&](size_t i) {
    const Range columns = columns_of(i);
    RowPart part(call, 0, columns.begin);
    while (part.end() < columns.end) part.produce(block_end(call, part.end(), columns.end));
    if (call.e.normalize) {
      stats[i] = part.finish();
    } else {
      part.normalize(NormScale{}, columns.begin, columns.end);  // y = act(t · 1)
    }
  });
  if (!call.e.normalize) return;
  PartStats row = stats[0];
  for (size_t i = 1; i < threads; ++i) row = combine(row, stats[i]);
  NormScale map;
  if (!row_map(call, row, &map)) return fallback_row(call, 0);
  pool.run_tasks(threads, [&](size_t i) {
    const Range columns = columns_of(i);
    RowPart(call, 0, columns.begin).normalize(map, columns.begin, columns.end);
  });
}

// Rows [row, row + rows): one matmul over all columns, then each row's
// statistics and normalization while its outputs are in L2.
void run_row_block(const FusedCall& call, size_t row, size_t rows) {
  call.matmul(row, rows, 0, call.n(), true);
  if (call.e.normalize) {
    normalize_rows(call, row, rows);
    return;
  }
  for (size_t r = row; r < row + rows; ++r) {
    RowPart part(call, r, 0);
    part.absorb(call.n());
    NormScale map;
    if (row_map(call, part.finish(), &map)) {
      part.normalize(map, 0, call.n());
    } else {
      fallback_row(call, r);
    }
  }
}

// Rows per block: their outputs stay in L2 until normalized (kRowBlockBytes);
// with weights bigger than that, see kMinRowsPerWeightPass.
size_t row_block_size(const FusedCall& call, size_t m) {
  const size_t in_l2 = std::max<size_t>(kRowBlockBytes / (call.n() * sizeof(float)), 1);
  if (call.w.size_bytes() <= kRowBlockBytes) return std::min(in_l2, m);
  const bool x_in_l2 = m * call.w.k() * sizeof(float) <= detail::kGemmXInL2Bytes;
  const size_t rows = std::max(in_l2, kMinRowsPerWeightPass);
  if (!x_in_l2 || m < 2 * rows) return m;
  const size_t blocks = m / rows;  // as equal as possible, none under `rows`
  return (m + blocks - 1) / blocks;
}

void run_rows(const FusedCall& call, size_t m) {
  const size_t block = row_block_size(call, m);
  for (size_t row = 0; row < m; row += block) run_row_block(call, row, std::min(block, m - row));
}

// The epilogue of rows [row, row + rows) over columns [c0, c1) when it needs
// no statistics of the whole row: residual add, sum_dst, activation.
void finish_columns(const FusedCall& call, size_t row, size_t rows, size_t c0, size_t c1) {
  for (size_t r = row; r < row + rows; ++r) {
    RowPart part(call, r, c0);
    part.absorb(c1);
    part.normalize(NormScale{}, c0, c1);
  }
}

// m > 1 on several threads: each row block's matmul split by columns (each
// thread a panel-aligned slice of N, all rows, so each reads only its share
// of the weights), then its epilogue: a norm needs whole rows, so once the
// block's columns are all done each thread normalizes a share of its rows; without a norm
// each finishes its own columns at once. The matmul's summation order does
// not depend on the columns or rows a thread takes (row_block_order), and
// the epilogue is the serial one on the same rows or columns, so the result
// is bit for bit that of one thread. The pieces are claimed (see
// kSlicesPerThread).
void run_rows_parallel(const FusedCall& call, size_t m, ThreadPool& pool, size_t threads) {
  const size_t block = row_block_size(call, m);
  const size_t slices = std::min(threads * kSlicesPerThread, call.w.panel_count());
  const auto columns_of = [&](size_t t) {
    return split_range(call.n(), slices, t, call.w.panel_width());
  };
  if (!call.e.normalize) {
    pool.run_tasks(slices, [&](size_t t) {
      const Range columns = columns_of(t);
      if (columns.empty()) return;
      for (size_t row = 0; row < m; row += block) {
        const size_t rows = std::min(block, m - row);
        call.matmul(row, rows, columns.begin, columns.end, true);
        if (!call.plain()) finish_columns(call, row, rows, columns.begin, columns.end);
      }
    });
    return;
  }
  for (size_t row = 0; row < m; row += block) {
    const size_t rows = std::min(block, m - row);
    pool.run_tasks(slices, [&](size_t t) {
      const Range columns = columns_of(t);
      if (!columns.empty()) call.matmul(row, rows, columns.begin, columns.end, true);
    });
    const size_t row_slices = std::min(threads * kSlicesPerThread, rows);
    pool.run_tasks(row_slices, [&](size_t t) {
      const Range mine = split_range(rows, row_slices, t);
      normalize_rows(call, row + mine.begin, mine.size());
    });
  }
}

// How many threads an m > 1 call uses: all of the pool's from
// min_parallel_work multiply-adds, at most one per panel.
size_t rows_threads(const FusedCall& call, size_t m, const ThreadPool* pool) {
  if (pool == nullptr) return 1;
  const size_t work = m * call.n() * call.w.k();
  if (work < min_parallel_work) return 1;
  return std::min({pool->size(), kMaxThreads, call.w.panel_count()});
}

Status check_no_overlap(const char* a_name, Extent a, const char* b_name, Extent b) {
  if (!overlap(a, b)) return Status::ok();
  return Status::error(std::string("fused_linear: ") + a_name + " overlaps " + b_name);
}

}  // namespace

namespace detail {
size_t set_fused_linear_min_parallel_bytes(size_t bytes) {
  const size_t previous = min_parallel_weight_bytes();
  min_parallel_weight_bytes() = bytes;
  return previous;
}
size_t set_fused_linear_min_parallel_work(size_t multiply_adds) {
  const size_t previous = min_parallel_work;
  min_parallel_work = multiply_adds;
  return previous;
}
}  // namespace detail

Status fused_linear_validate(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                             const LinearEpilogue& e, const float* y, size_t y_stride) {
  Status matmul = linear_validate(w, x, m, x_stride, y, y_stride, 0, w.n(), e.bias);
  if (!matmul) return Status::error("fused_linear: " + matmul.message());
  if (m == 0) return Status::ok();
  if (detail::norm_row_ops_for(w.isa()) == nullptr) {
    return Status::error(std::string("fused_linear: no norm kernels for ") + isa_name(w.isa()));
  }
  const size_t n = w.n();
  if (e.sum_dst != nullptr && e.residual == nullptr) {
    return Status::error("fused_linear: sum_dst is set but residual is null (nothing to sum)");
  }
  const Extent y_extent = extent_of(y, m, y_stride, n);
  if (e.residual != nullptr) {
    if (m > 1 && e.residual_stride < n) {
      return Status::error("fused_linear: residual_stride (" + std::to_string(e.residual_stride) +
                           ") is smaller than n (" + std::to_string(n) + ")");
    }
    // The matmul writes y before the residual is read: they cannot share memory.
    NORMRT_RETURN_IF_ERROR(check_no_overlap("y", y_extent, "residual",
                                            extent_of(e.residual, m, e.residual_stride, n)));
  }
  if (e.sum_dst != nullptr) {
    if (m > 1 && e.sum_stride < n) {
      return Status::error("fused_linear: sum_stride (" + std::to_string(e.sum_stride) +
                           ") is smaller than n (" + std::to_string(n) + ")");
    }
    const Extent sum = extent_of(e.sum_dst, m, e.sum_stride, n);
    const bool same_as_residual = e.sum_dst == e.residual && e.sum_stride == e.residual_stride;
    Status s = check_no_overlap("sum_dst", sum, "y", y_extent);
    if (s && !same_as_residual) {
      s = check_no_overlap("sum_dst", sum, "residual",
                           extent_of(e.residual, m, e.residual_stride, n));
    }
    if (s && x != nullptr) {
      s = check_no_overlap("sum_dst", sum, "x", extent_of(x, m, x_stride, w.k()));
    }
    if (!s) return s;
  }
  if (activation_uses_alpha(e.activation) && !std::isfinite(e.activation_alpha)) {
    return Status::error(std::string("fused_linear: ") + activation_name(e.activation) +
                         "'s activation_alpha must be finite (got " +
                         std::to_string(e.activation_alpha) + ")");
  }
  if (e.normalize) {
    NormRows rows;  // the norm's own checks on its parameters, gain and bias
    rows.rows = m;
    rows.n = n;
    rows.src = rows.dst = const_cast<float*>(y);
    rows.src_stride = rows.dst_stride = y_stride;
    rows.gain = e.gain;
    rows.bias = e.norm_bias;
    Status s = norm_validate(e.norm, rows);
    if (!s) return Status::error("fused_linear: " + s.message());
  }
  return Status::ok();
}

namespace {

// The call after validation.
void run_fused_linear(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                      const LinearEpilogue& epilogue, float* y, size_t y_stride, ThreadPool* pool) {
  if (m == 0) return;
  NormParams params = epilogue.norm;
  if (!epilogue.normalize) params = NormParams{NormKind::kRmsNorm};  // no centering, scale 1
  const FusedCall call{w,
                       x,
                       x_stride,
                       epilogue,
                       y,
                       y_stride,
                       *detail::norm_row_ops_for(w.isa()),
                       params,
                       norm_stat_count(params, w.n())};
  if (m > 1) {
    const size_t threads = rows_threads(call, m, pool);
    if (threads > 1) {
      run_rows_parallel(call, m, *pool, threads);
    } else {
      run_rows(call, m);
    }
    return;
  }
  const size_t threads = pool == nullptr || w.size_bytes() < min_parallel_weight_bytes()
                             ? 1
                             : std::min({pool->size(), kMaxThreads, w.panel_count()});
  if (threads > 1) {
    run_row_parallel(call, *pool, threads);
  } else {
    run_row_serial(call);
  }
}

}  // namespace

Status fused_linear(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                    const LinearEpilogue& epilogue, float* y, size_t y_stride, ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(fused_linear_validate(w, x, m, x_stride, epilogue, y, y_stride));
  run_fused_linear(w, x, m, x_stride, epilogue, y, y_stride, pool);
  return Status::ok();
}

Status fused_linear_unchecked(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                              const LinearEpilogue& epilogue, float* y, size_t y_stride,
                              ThreadPool* pool) {
#ifndef NDEBUG
  NORMRT_RETURN_IF_ERROR(fused_linear_validate(w, x, m, x_stride, epilogue, y, y_stride));
#endif
  run_fused_linear(w, x, m, x_stride, epilogue, y, y_stride, pool);
  return Status::ok();
}

}  // namespace normrt
