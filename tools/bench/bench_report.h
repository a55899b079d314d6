#pragma once
// What normrt-bench measured, as plain data: the table, the JSON and the SVG
// are three views of one BenchReport (docs/bench.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/bench/replace_norm.h"

namespace normrt::bench {

/// Mean time per run of each kind of node, in milliseconds. The kinds
/// partition the nodes, so they add up to `total()`.
struct NodeKindTimes {
  double linear = 0;           ///< Linear
  double fused_linear = 0;     ///< FusedLinear without a norm (matmul + add / activation)
  double fused_with_norm = 0;  ///< FusedLinear with a norm, LstmCell / GruCellBa that normalize
  double attention = 0;        ///< Attention
  double norm = 0;             ///< LayerNorm, RmsNorm, PRmsNorm
  double other = 0;            ///< everything else (Embedding, Add, Activation, pooling, ...)
  double total() const {
    return linear + fused_linear + fused_with_norm + attention + norm + other;
  }
};

/// Node counts of one compiled variant, after the passes.
struct NodeCounts {
  size_t total = 0;
  size_t norm = 0;             ///< standalone norm nodes
  size_t fused_with_norm = 0;  ///< nodes that normalize inside (NodeKindTimes::fused_with_norm)
};

/// One (norm, fused or not) configuration of one model.
struct VariantResult {
  NormReplacement norm;
  bool fused = true;               ///< fusion and norm-affine folding on
  bool as_stored = false;          ///< the norm is the model's own: this is the model as stored
  std::vector<double> samples_ms;  ///< end-to-end latency of every timed run, in run order
  double p50_ms = 0, p99_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  NodeKindTimes node_ms;  ///< per run, from the session's profile over the same runs
  NodeCounts nodes;
  double norm_share = 0;             ///< node_ms.norm / node_ms.total()
  double fused_with_norm_share = 0;  ///< node_ms.fused_with_norm / node_ms.total()
  /// p50 over the p50 of layer_norm in the same fused mode; < 0 if LayerNorm was not run.
  double ratio_vs_layer_norm = -1;
  std::string label() const;  ///< "rms_norm fused"
};

/// One model (the file, or the built-in encoder at one width).
struct ModelResult {
  std::string name;         ///< the file path, or "builtin-384"
  std::string description;  ///< "6 layers, hidden 384, ..." or the file's architecture metadata
  int64_t width = 0;        ///< hidden width of a built-in model; 0 for a file
  std::string stored_norm;  ///< the model's own norms: "layer_norm", "mixed", "none"
  size_t sequence_length = 0;
  bool stateful = false;  ///< has state (RNN, KV cache): runs continue from the last position
  size_t rounds = 0;      ///< timed rounds (each runs every variant once)
  bool stopped_by_budget = false;  ///< fewer rounds than --runs: --max-seconds ran out
  double compile_seconds = 0;
  std::string isa;  ///< the kernel ISA the models were compiled for
  /// Storage of the matrices: "f32", "bf16", "int8" (the converter's
  /// metadata, else f32), with the counts when mixed: "int8 (30 int8, 6 f32)".
  std::string dtype;
  bool bf16_activations = false;  ///< --bf16-activations (or NORMRT_BF16_ACTIVATIONS=1)
  /// Per node: the kernel chosen at load and why (Model::kernel_choices()), as stored.
  std::vector<std::pair<std::string, std::string>> kernels;
  std::string inputs;  ///< what was fed (bench_inputs.h describe_inputs())
  std::vector<VariantResult> variants;
};

struct MachineInfo {
  std::string isa;          ///< the kernel ISA the runtime chose for the models (or --isa's)
  std::string cpu_model;    ///< /proc/cpuinfo "model name" (or "unknown")
  size_t logical_cpus = 0;  ///< std::thread::hardware_concurrency()
  size_t usable_cpus = 0;   ///< CPUs this process may run on (taskset), 0 if unknown
};

struct BenchSettings {
  std::string model_path;  ///< "" for the built-in encoder
  size_t runs = 0, warmup = 0, threads = 1;
  std::string isa_requested;
  bool unfused = true;
  bool bf16_activations = false;
  double max_seconds = 0;
  std::vector<NormReplacement> norms;
  std::vector<int64_t> widths;  ///< built-in encoder only
};

struct BenchReport {
  MachineInfo machine;
  BenchSettings settings;
  std::vector<ModelResult> models;
  double elapsed_seconds = 0;
};

/// The nearest-rank percentile (q in (0, 1]) of `values`: the smallest value
/// with at least q of them at or below it. 0 for no values.
double percentile(std::vector<double> values, double q);

/// Fills the latency statistics and ratios of `model`'s variants from their samples.
void summarize(ModelResult& model);

}  // namespace normrt::bench
