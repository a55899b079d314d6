// The variant list, the task grid, argument validation and the checked and
// threaded entry points of the attention kernels.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "base/huge_pages.h"
#include "kernels/attention/attention_variants.h"
#include "kernels/common/extent.h"
#include "kernels/common/tuning_choice.h"

namespace normrt {
namespace {

size_t min_parallel_work = kAttentionMinParallelWork;

std::string num(size_t value) { return std::to_string(value); }

// The bytes a (batch, rows, width) operand spans; batch, rows ≥ 1.
Extent operand_extent(const void* base, size_t batch, size_t batch_stride, size_t rows,
                      size_t row_stride, size_t width, size_t element_bytes) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(base);
  const size_t last = (batch - 1) * batch_stride + (rows - 1) * row_stride + width;
  return {begin, begin + last * element_bytes};
}

// The strides of one (batch, rows, width) operand keep its rows apart.
Status check_strides(const char* name, size_t batch, size_t rows, size_t width, size_t row_stride,
                     size_t batch_stride, const char* row_field, const char* batch_field) {
  if (rows > 1 && row_stride < width) {
    return Status::error(std::string("attention: ") + row_field + " (" + num(row_stride) +
                         ") is smaller than the " + name + " row width (" + num(width) + ")");
  }
  const size_t sequence_span = (rows - 1) * row_stride + width;
  if (batch > 1 && batch_stride < sequence_span) {
    return Status::error(std::string("attention: ") + batch_field + " (" + num(batch_stride) +
                         ") is smaller than one sequence of " + name + " (" + num(sequence_span) +
                         " floats)");
  }
  return Status::ok();
}

// Each head's row of the position bias covers the relative positions
// −(query_position + query_rows − 1) .. key_rows − 1.
Status check_position_bias(const AttentionParams& p, const AttentionArgs& a, const Extent& out) {
  const size_t farthest_query = a.query_position + a.query_rows - 1;
  if (a.position_bias_zero < farthest_query) {
    return Status::error("attention: position_bias_zero (" + num(a.position_bias_zero) +
                         ") is smaller than query_position + query_rows - 1 (" +
                         num(farthest_query) + "): the bias table has no entry for key 0");
  }
  if (a.position_bias_head_stride < a.position_bias_zero + a.key_rows) {
    return Status::error(
        "attention: position_bias_head_stride (" + num(a.position_bias_head_stride) +
        ") is smaller than position_bias_zero + key_rows (" +
        num(a.position_bias_zero + a.key_rows) + "): the bias table has no entry for the last key");
  }
  if (overlap(out, operand_extent(a.position_bias, 1, 0, p.heads, a.position_bias_head_stride,
                                  a.position_bias_head_stride, sizeof(float)))) {
    return Status::error("attention: out overlaps position_bias");
  }
  return Status::ok();
}

}  // namespace

namespace detail {

AttentionTaskGrid attention_task_grid(const AttentionParams& params, const AttentionArgs& args,
                                      size_t parts) {
  AttentionTaskGrid grid;
  grid.kv_heads = params.kv_heads;
  grid.query_rows = args.query_rows;
  grid.group = params.heads / params.kv_heads;
  grid.heads_per_chunk = std::min(grid.group, kAttentionTaskRows);
  grid.head_chunks = (grid.group + grid.heads_per_chunk - 1) / grid.heads_per_chunk;
  // Tiles of at most kAttentionTaskRows rows per kv head, as even as possible
  // (129 rows: 65 + 64, not 128 + 1).
  const size_t max_tile = std::max<size_t>(1, kAttentionTaskRows / grid.heads_per_chunk);
  grid.query_tiles = (args.query_rows + max_tile - 1) / max_tile;
  if (grid.query_tiles > 0) {
    grid.query_tile = (args.query_rows + grid.query_tiles - 1) / grid.query_tiles;
    grid.query_tiles = (args.query_rows + grid.query_tile - 1) / grid.query_tile;  // none empty
  }
  // kv heads per task: as many as kAttentionTaskRows rows hold (a decoder
  // token's K and V then stream in whole rows), but no fewer tasks than parts.
  const size_t rows_per_kv_head = grid.query_tile * grid.heads_per_chunk;
  const size_t max_per_task =
      grid.head_chunks > 1 ? 1 : std::max<size_t>(1, kAttentionTaskRows / rows_per_kv_head);
  const size_t others = std::max<size_t>(1, args.batch * grid.head_chunks * grid.query_tiles);
  const size_t wanted = (std::max<size_t>(parts, 1) + others - 1) / others;
  const size_t groups =
      std::min(grid.kv_heads, std::max((grid.kv_heads + max_per_task - 1) / max_per_task, wanted));
  grid.kv_heads_per_task = (grid.kv_heads + groups - 1) / groups;
  grid.kv_head_groups = (grid.kv_heads + grid.kv_heads_per_task - 1) / grid.kv_heads_per_task;
  grid.count = args.batch * grid.kv_head_groups * grid.head_chunks * grid.query_tiles;
  return grid;
}

AttentionTask attention_task(const AttentionTaskGrid& grid, size_t index) {
  AttentionTask t;
  const size_t tile = index % grid.query_tiles;
  index /= grid.query_tiles;
  const size_t chunk = index % grid.head_chunks;
  index /= grid.head_chunks;
  const size_t kv_group = index % grid.kv_head_groups;
  t.batch = index / grid.kv_head_groups;
  t.kv_head_begin = kv_group * grid.kv_heads_per_task;
  t.kv_head_end = std::min(t.kv_head_begin + grid.kv_heads_per_task, grid.kv_heads);
  t.head_begin = chunk * grid.heads_per_chunk;
  t.head_end = std::min(t.head_begin + grid.heads_per_chunk, grid.group);
  t.query_begin = tile * grid.query_tile;
  t.query_end = std::min(t.query_begin + grid.query_tile, grid.query_rows);
  return t;
}

size_t set_attention_min_parallel_work(size_t multiply_adds) {
  const size_t previous = min_parallel_work;
  min_parallel_work = multiply_adds;
  return previous;
}

KvPrefetch attention_kv_prefetch(size_t row_bytes) {
  constexpr size_t kPageBytes = 4096;
  static const std::optional<KvPrefetch> forced = []() -> std::optional<KvPrefetch> {
    const char* value = std::getenv("NORMRT_ATTENTION_PREFETCH");
    if (value == nullptr) return std::nullopt;
    for (auto [name, level] :
         {std::pair{"none", KvPrefetch::kNone}, {"l1", KvPrefetch::kL1}, {"l2", KvPrefetch::kL2}}) {
      if (std::strcmp(value, name) == 0) return level;
    }
    return std::nullopt;
  }();
  static const bool huge_pages = huge_pages_available();
  static const KvPrefetch by_vendor =
      cpu_vendor_is("AuthenticAMD") ? KvPrefetch::kL1 : KvPrefetch::kL2;
  if (forced) return *forced;
  return huge_pages && row_bytes >= kPageBytes ? KvPrefetch::kNone : by_vendor;
}

size_t attention_key_length(const AttentionArgs& args, size_t b) {
  return args.key_lengths != nullptr ? args.key_lengths[b] : args.key_rows;
}

}  // namespace detail

AttentionArgs attention_dense(const AttentionParams& params, AttentionArgs args) {
  const size_t q_width = params.heads * params.head_dim;
  const size_t kv_width = params.kv_heads * params.head_dim;
  args.q_row_stride = args.out_row_stride = q_width;
  args.q_batch_stride = args.out_batch_stride = args.query_rows * q_width;
  args.kv_row_stride = kv_width;
  args.kv_batch_stride = args.key_rows * kv_width;
  return args;
}

Status attention_validate(const AttentionParams& p, const AttentionArgs& a) {
  if (p.head_dim == 0) return Status::error("attention: head_dim must be at least 1 (got 0)");
  if (p.heads == 0) return Status::error("attention: heads must be at least 1 (got 0)");
  if (p.kv_heads == 0) return Status::error("attention: kv_heads must be at least 1 (got 0)");
  if (p.heads % p.kv_heads != 0) {
    return Status::error("attention: heads (" + num(p.heads) +
                         ") must be a multiple of kv_heads (" + num(p.kv_heads) + ")");
  }
  if (!std::isfinite(p.scale)) return Status::error("attention: scale must be finite");
  if (a.batch == 0 || a.query_rows == 0) return Status::ok();

  const size_t q_width = p.heads * p.head_dim, kv_width = p.kv_heads * p.head_dim;
  if (a.q == nullptr) return Status::error("attention: q is null");
  if (a.out == nullptr) return Status::error("attention: out is null");
  NORMRT_RETURN_IF_ERROR(check_strides("q", a.batch, a.query_rows, q_width, a.q_row_stride,
                                       a.q_batch_stride, "q_row_stride", "q_batch_stride"));
  NORMRT_RETURN_IF_ERROR(check_strides("out", a.batch, a.query_rows, q_width, a.out_row_stride,
                                       a.out_batch_stride, "out_row_stride", "out_batch_stride"));
  const Extent out = operand_extent(a.out, a.batch, a.out_batch_stride, a.query_rows,
                                    a.out_row_stride, q_width, sizeof(float));
  if (overlap(out, operand_extent(a.q, a.batch, a.q_batch_stride, a.query_rows, a.q_row_stride,
                                  q_width, sizeof(float)))) {
    return Status::error("attention: out overlaps q");
  }
  if (a.key_lengths != nullptr) {
    for (size_t b = 0; b < a.batch; ++b) {
      if (a.key_lengths[b] > a.key_rows) {
        return Status::error("attention: key_lengths[" + num(b) + "] (" + num(a.key_lengths[b]) +
                             ") exceeds key_rows (" + num(a.key_rows) + ")");
      }
    }
    if (overlap(out, operand_extent(a.key_lengths, 1, 0, 1, 0, a.batch, sizeof(uint32_t)))) {
      return Status::error("attention: out overlaps key_lengths");
    }
  }
  if (a.key_rows == 0) return Status::ok();  // no keys: every row gets zeros

  if (a.k == nullptr) return Status::error("attention: k is null");
  if (a.v == nullptr) return Status::error("attention: v is null");
  NORMRT_RETURN_IF_ERROR(check_strides("k and v", a.batch, a.key_rows, kv_width, a.kv_row_stride,
                                       a.kv_batch_stride, "kv_row_stride", "kv_batch_stride"));
  for (auto [name, base] : {std::pair{"k", a.k}, std::pair{"v", a.v}}) {
    if (overlap(out, operand_extent(base, a.batch, a.kv_batch_stride, a.key_rows, a.kv_row_stride,
                                    kv_width, sizeof(float)))) {
      return Status::error(std::string("attention: out overlaps ") + name);
    }
  }
  if (a.key_mask != nullptr) {
    if (a.batch > 1 && a.key_mask_stride < a.key_rows) {
      return Status::error("attention: key_mask_stride (" + num(a.key_mask_stride) +
                           ") is smaller than key_rows (" + num(a.key_rows) + ")");
    }
    if (overlap(out, operand_extent(a.key_mask, a.batch, a.key_mask_stride, 1, 0, a.key_rows,
                                    sizeof(uint8_t)))) {
      return Status::error("attention: out overlaps key_mask");
    }
  }
  if (a.position_bias != nullptr) return check_position_bias(p, a, out);
  return Status::ok();
}

size_t attention_task_count(const AttentionParams& params, const AttentionArgs& args,
                            size_t parts) {
  if (args.batch == 0 || args.query_rows == 0) return 0;
  return detail::attention_task_grid(params, args, parts).count;
}

AttentionKernel attention_kernel_for(Isa isa) {
  const AttentionVariant* variant = first_variant_for(attention_variants(), isa);
  return variant != nullptr ? variant->kernel : nullptr;
}

Expected<AttentionKernel> selected_attention_kernel() {
  NORMRT_ASSIGN_OR_RETURN(Isa isa, selected_isa());
  return attention_kernel_for(isa);
}

void attention_run(AttentionKernel kernel, const AttentionParams& params, const AttentionArgs& args,
                   ThreadPool* pool) {
  if (args.batch == 0 || args.query_rows == 0) return;
  const size_t work = args.batch * args.query_rows * params.heads * args.key_rows * params.head_dim;
  const size_t threads = pool != nullptr && work >= min_parallel_work ? pool->size() : 1;
  const size_t tasks = threads < 2 ? 1 : attention_task_count(params, args, threads);
  if (tasks < 2) {
    kernel(params, args, 0, 1);
    return;
  }
  // Claimed one by one (a caller of `tasks` parts takes task i alone), so
  // that uneven tasks balance, and a worker still waiting for a CPU when the
  // caller has taken them all is not waited for.
  pool->run_tasks(tasks, [&](size_t task) { kernel(params, args, task, tasks); });
}

Status attention(const AttentionParams& params, const AttentionArgs& args, ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(attention_validate(params, args));
  static const Expected<AttentionKernel> kernel = selected_attention_kernel();
  if (!kernel) return kernel.status();
  attention_run(*kernel, params, args, pool);
  return Status::ok();
}

}  // namespace normrt
