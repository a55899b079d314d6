#pragma once
// The measurement of one model: every (norm × fused/unfused) variant is
// compiled from the same stored graph (replace_norm, then compile_model), and
// all of them are run in interleaved rounds — each round runs every variant
// once, the order rotating by one each round — so drift on a shared machine
// (frequency, a neighbour's build) spreads over all variants instead of
// biasing the ones measured last.
//
// End-to-end latency is the steady-clock time of Session::run() (the inputs
// are bound before the clock starts). Per-node times come from the same runs
// (SessionOptions::profile; its ~50 ns per node is inside the end-to-end
// time, so the node times of a run add up to less than its latency).
// A model with state (RNN, KV cache) carries it from run to run, as a decoder
// does, and is reset before a run that would pass max_sequence_length; all
// variants advance in lock step, so each round runs them at the same position.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"
#include "tools/bench/bench_report.h"

namespace normrt::bench {

struct MeasureSettings {
  size_t sequence_length = 32;
  size_t runs = 100;  ///< timed rounds wanted
  size_t warmup = 5;  ///< untimed rounds first
  size_t threads = 1;
  std::string isa;                ///< ModelOptions::isa
  bool unfused = true;            ///< also time fuse = fold_norm_affine = false
  bool bf16_activations = false;  ///< ModelOptions::bf16_activations
  std::vector<NormReplacement> norms;
  /// Wall-clock budget of this model, compile time included; 0: none. At
  /// least one timed round always runs.
  double budget_seconds = 0;
};

/// Progress lines for the terminal ("compiled 10 variants in 1.2 s").
using ProgressFn = std::function<void(const std::string&)>;

/// The norms of `graph` as a label: "layer_norm", "prms_norm:0.125",
/// "mixed" (several kinds) or "none".
std::string stored_norm_label(const Graph& graph);

/// The stored matrices' dtype: the converter's "dtype" metadata (else f32),
/// with the Linear counts when int8 and others mix: "int8 (30 int8, 6 not)".
std::string matrix_dtype_label(const Graph& graph);

/// True if `graph` keeps state between runs.
bool graph_is_stateful(const Graph& graph);

/// Compiles and times every variant of `stored` (a validated graph). Errors
/// name the variant: a norm the graph cannot take (⌊p·n⌋ = 0), an ISA not
/// runnable here, a failed run.
Expected<ModelResult> measure_model(const Graph& stored, const std::string& name,
                                    const MeasureSettings& settings, const ProgressFn& progress);

}  // namespace normrt::bench
