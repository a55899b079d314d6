#pragma once
// A Session's memory and its precomputed run plan. Built once per session
// (session_setup.cc), used by the run loop (run_loop.cc).
//
// Every tensor has one TensorView (`views`); each step gets its own
// contiguous copy of its operands' views (`step_views`), which is what its
// kernel receives. A change of S or of a bound input pointer is written into
// the tensor's view and into every copy of it (`copies`), so the loop itself
// only walks the steps.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/common/thread_pool.h"
#include "runtime/exec/compiled_model.h"
#include "runtime/ops/op.h"

namespace normrt {

struct AlignedFree {
  void operator()(std::byte* bytes) const;
};
using AlignedBytes = std::unique_ptr<std::byte[], AlignedFree>;
/// `bytes` zeroed bytes aligned to kArenaAlignment (at least one byte is
/// allocated), from 2 MB on in huge pages (base/huge_pages.h); null if the
/// allocation fails.
AlignedBytes allocate_aligned(size_t bytes);

struct Step {
  const OpKernel* kernel = nullptr;
  size_t first_view = 0;  ///< inputs at step_views[first_view ..], then the outputs
  size_t input_count = 0, output_count = 0;
  OpSessionState* session_state = nullptr;
};

struct NORMRT_LOCAL Session::Impl {
  std::shared_ptr<const Model> model;
  const Model::Impl* compiled = nullptr;
  AlignedBytes arena, state, workspace;
  std::vector<TensorView> views;            ///< per tensor
  std::vector<TensorView> step_views;       ///< per step: inputs then outputs
  std::vector<std::vector<size_t>> copies;  ///< per tensor: its indices in step_views
  std::vector<Step> steps;
  std::vector<std::unique_ptr<OpSessionState>> op_states;
  std::unique_ptr<ThreadPool> pool;
  size_t threads = 1;  ///< resolved SessionOptions::threads: the pool's size, or 1

  /// Per graph input: the S of the data set_input() bound (0 if the input's
  /// shape has no S), and its sequences B (1 unless bound as a batch).
  std::vector<size_t> bound_length, bound_batch;
  /// Memory is planned for this many sequences (SessionOptions::max_batch).
  size_t max_batch = 1;
  /// set_attention_mask(): real tokens per sequence (max_batch entries), for
  /// runs of mask_batch sequences of mask_length tokens (0: no mask).
  std::vector<uint32_t> sequence_lengths;
  size_t mask_batch = 0, mask_length = 0;
  /// This run's packed row offsets (OpRunContext::sequence_offsets).
  std::vector<uint32_t> sequence_offsets;
  /// Per graph input: the data set_input() bound (padded [B, S, ...]), and,
  /// for a model that runs batches, room for its real rows packed (empty
  /// otherwise), where run() copies them when the mask removes padding.
  std::vector<const std::byte*> bound_data;
  std::vector<AlignedBytes> packed_inputs;
  /// Per graph input: for an i32 input, room for its elements at the largest
  /// S, where set_input() converts i64 data (empty for other inputs).
  std::vector<AlignedBytes> converted_inputs;
  size_t sequence_length = 1;  ///< S the views currently carry
  size_t batch = 1;            ///< B the views currently carry
  size_t token_rows = 1;       ///< rows of the S views: the real tokens of the batch
  size_t position = 0;

  bool profiling = false;
  std::vector<NodeProfile> profile;

  /// Writes `view` into the tensor's view and all its step copies.
  void publish(TensorId tensor, const TensorView& view);
  /// Gives every S-dependent view `rows` as its first dimension (the tokens
  /// of every sequence) and `sequence_length` elsewhere, and every
  /// per-sequence view `batch` rows.
  void set_sequence_length(size_t sequence_length, size_t batch, size_t rows);
};

/// Sets the run's packed sequence offsets for `batch` sequences of `length`
/// (their mask lengths if a mask is set) and points every S input at its
/// real rows: the bound data, or their packed copy if the mask removes
/// padding (session_batch.cc). Returns the rows of the S views; an error if
/// the mask leaves no token.
Expected<size_t> pack_batch(Session::Impl& session, size_t batch, size_t length);

/// A read-only reference to what `view` holds (an output, a state).
TensorRef tensor_ref(const TensorView& view);

/// Builds a session's memory and step plan for `model`.
Expected<std::unique_ptr<Session::Impl>> make_session_impl(std::shared_ptr<const Model> model,
                                                           const SessionOptions& options);

}  // namespace normrt
