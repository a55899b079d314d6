#include "tools/bench/bench_table.h"

#include <cstdio>

#include "tools/bench/append_format.h"

namespace normrt::bench {
namespace {

std::string variant_name(const VariantResult& v) {
  return norm_replacement_label(v.norm) + (v.as_stored ? " *" : "");
}

std::string ratio_text(double ratio) {
  if (ratio < 0) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.3f", ratio);
  return text;
}

void format_model(std::string& out, const ModelResult& m, const BenchSettings& settings) {
  append(out, "\n%s (%s): S = %zu, isa %s, %zu thread%s, %zu round%s%s\n", m.name.c_str(),
         m.description.c_str(), m.sequence_length, m.isa.c_str(), settings.threads,
         settings.threads == 1 ? "" : "s", m.rounds, m.rounds == 1 ? "" : "s",
         m.stopped_by_budget ? " (stopped by --max-seconds)" : "");
  append(out, "matrices: %s; bf16 activations: %s\n", m.dtype.c_str(),
         m.bf16_activations ? "on" : "off");
  if (!m.kernels.empty()) {  // the first node's choice stands for the common case
    append(out, "kernel (node %s): %s\n", m.kernels.front().first.c_str(),
           m.kernels.front().second.c_str());
  }
  append(out, "stored norm: %s%s%s\n\n", m.stored_norm.c_str(),
         m.stored_norm == "none" ? " (no norm nodes: every variant runs the same graph)" : "",
         m.stateful ? "; stateful: runs continue from the previous position" : "");
  append(out, "%-18s %-8s %9s %9s %7s %7s %12s\n", "norm", "mode", "p50 ms", "p99 ms", "vs LN",
         "norm %", "fused+norm %");
  for (const VariantResult& v : m.variants) {
    append(out, "%-18s %-8s %9.4g %9.4g %7s %6.2f%% %11.1f%%\n", variant_name(v).c_str(),
           v.fused ? "fused" : "unfused", v.p50_ms, v.p99_ms,
           ratio_text(v.ratio_vs_layer_norm).c_str(), 100 * v.norm_share,
           100 * v.fused_with_norm_share);
  }
  append(out, "\ntime per run by node kind, us (nodes: norm / fused+norm / all)\n");
  append(out, "%-18s %-8s %9s %9s %10s %9s %8s %8s %9s  %s\n", "norm", "mode", "Linear", "FusedLin",
         "Fused+norm", "Attention", "norm", "other", "total", "nodes");
  for (const VariantResult& v : m.variants) {
    const NodeKindTimes& t = v.node_ms;
    constexpr double us = 1000;  // NodeKindTimes are in ms
    append(out, "%-18s %-8s %9.1f %9.1f %10.1f %9.1f %8.1f %8.1f %9.1f  %zu / %zu / %zu\n",
           variant_name(v).c_str(), v.fused ? "fused" : "unfused", us * t.linear,
           us * t.fused_linear, us * t.fused_with_norm, us * t.attention, us * t.norm, us * t.other,
           us * t.total(), v.nodes.norm, v.nodes.fused_with_norm, v.nodes.total);
  }
}

}  // namespace

std::string format_table(const BenchReport& report) {
  std::string out;
  append(out, "normrt-bench: %s, %zu logical CPUs", report.machine.cpu_model.c_str(),
         report.machine.logical_cpus);
  if (report.machine.usable_cpus != 0) append(out, " (%zu usable)", report.machine.usable_cpus);
  out += "\n";
  for (const ModelResult& model : report.models) format_model(out, model, report.settings);
  out +=
      "\n* the model as stored. vs LN: p50 over LayerNorm's p50 in the same mode.\n"
      "norm %: standalone norm nodes' share of node time. fused+norm %: nodes that normalize\n"
      "inside (FusedLinear with a norm, normalizing RNN cells), matmul included: a fused\n"
      "norm's own time cannot be split off; compare the variants' latencies instead.\n";
  append(out, "total time %.1f s\n", report.elapsed_seconds);
  return out;
}

}  // namespace normrt::bench
