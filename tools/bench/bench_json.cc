#include "tools/bench/bench_json.h"

#include <nlohmann/json.hpp>

#include "runtime/graph/norm_attributes.h"

namespace normrt::bench {
namespace {

using json = nlohmann::ordered_json;

json variant_json(const VariantResult& v) {
  const NodeKindTimes& t = v.node_ms;
  json j;
  j["label"] = norm_replacement_label(v.norm);
  j["norm"] = norm_kind_name(v.norm.kind);
  j["p"] = v.norm.kind == NormKind::kPRmsNorm ? json(v.norm.p) : json(nullptr);
  j["fused"] = v.fused;
  j["as_stored"] = v.as_stored;
  j["runs"] = v.samples_ms.size();
  j["latency_ms"] = {{"p50", v.p50_ms},
                     {"p99", v.p99_ms},
                     {"mean", v.mean_ms},
                     {"min", v.min_ms},
                     {"max", v.max_ms}};
  j["ratio_vs_layer_norm"] =
      v.ratio_vs_layer_norm < 0 ? json(nullptr) : json(v.ratio_vs_layer_norm);
  j["norm_share"] = v.norm_share;
  j["fused_with_norm_share"] = v.fused_with_norm_share;
  j["node_ms_per_run"] = {{"linear", t.linear},
                          {"fused_linear", t.fused_linear},
                          {"fused_with_norm", t.fused_with_norm},
                          {"attention", t.attention},
                          {"norm", t.norm},
                          {"other", t.other},
                          {"total", t.total()}};
  j["nodes"] = {{"total", v.nodes.total},
                {"norm", v.nodes.norm},
                {"fused_with_norm", v.nodes.fused_with_norm}};
  j["samples_ms"] = v.samples_ms;
  return j;
}

json model_json(const ModelResult& m) {
  json j;
  j["name"] = m.name;
  j["description"] = m.description;
  j["width"] = m.width == 0 ? json(nullptr) : json(m.width);
  j["stored_norm"] = m.stored_norm;
  j["sequence_length"] = m.sequence_length;
  j["stateful"] = m.stateful;
  j["isa"] = m.isa;
  j["dtype"] = m.dtype;
  j["bf16_activations"] = m.bf16_activations;
  j["kernels"] = json::array();
  for (const auto& [node, kernel] : m.kernels)
    j["kernels"].push_back({{"node", node}, {"kernel", kernel}});
  j["inputs"] = m.inputs;
  j["rounds"] = m.rounds;
  j["stopped_by_time_budget"] = m.stopped_by_budget;
  j["compile_seconds"] = m.compile_seconds;
  j["variants"] = json::array();
  for (const VariantResult& v : m.variants) j["variants"].push_back(variant_json(v));
  return j;
}

}  // namespace

std::string format_json(const BenchReport& report) {
  json j;
  j["schema"] = "normrt-bench/1";
  j["machine"] = {{"isa", report.machine.isa},
                  {"cpu_model", report.machine.cpu_model},
                  {"logical_cpus", report.machine.logical_cpus},
                  {"usable_cpus", report.machine.usable_cpus}};
  const BenchSettings& s = report.settings;
  json norms = json::array();
  for (const NormReplacement& norm : s.norms) norms.push_back(norm_replacement_label(norm));
  j["settings"] = {{"model", s.model_path.empty() ? json(nullptr) : json(s.model_path)},
                   {"builtin", s.model_path.empty()},
                   {"widths", s.widths},
                   {"norms", norms},
                   {"unfused", s.unfused},
                   {"runs", s.runs},
                   {"warmup", s.warmup},
                   {"threads", s.threads},
                   {"isa_requested", s.isa_requested},
                   {"bf16_activations", s.bf16_activations},
                   {"max_seconds", s.max_seconds}};
  j["models"] = json::array();
  for (const ModelResult& m : report.models) j["models"].push_back(model_json(m));
  j["elapsed_seconds"] = report.elapsed_seconds;
  return j.dump(2) + "\n";
}

}  // namespace normrt::bench
