#include "tools/bench/bench_measure.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <utility>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/norm_attributes.h"
#include "tools/bench/bench_inputs.h"

namespace normrt::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string format_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

// The kind a node's "norm" attribute names, or "" for none / not a string.
std::string norm_attribute(const Node& node) {
  const AttributeValue* norm = node.find_attribute("norm");
  const auto* kind = norm != nullptr ? std::get_if<std::string>(norm) : nullptr;
  return kind == nullptr || *kind == "none" ? "" : *kind;
}

// The norm a node applies as a --norms label, or "" if it applies none.
std::string node_norm_label(const Node& node) {
  std::string kind = norm_op_kind(node.op) != nullptr ? norm_op_kind(node.op) : "";
  if (kind.empty() && (node.op == OpType::kFusedLinear || node.op == OpType::kLstmCell ||
                       node.op == OpType::kGruCellBa)) {
    kind = norm_attribute(node);
  }
  if (kind.empty()) return "";
  Expected<double> p = node.float_attribute("p", 1.0);
  Expected<NormReplacement> norm = norm_replacement(kind, p ? *p : 1.0);
  return norm ? norm_replacement_label(*norm) : kind;
}

// Adds one profiled node's time to the kind it belongs to.
void add_node_time(const NodeProfile& profile, const Node& node, double ms, NodeKindTimes& times,
                   NodeCounts* counts) {
  const bool cell_norm = (node.op == OpType::kLstmCell || node.op == OpType::kGruCellBa) &&
                         !norm_attribute(node).empty();
  double* slot = &times.other;
  if (norm_op_kind(node.op) != nullptr) {
    slot = &times.norm;
    if (counts) ++counts->norm;
  } else if ((node.op == OpType::kFusedLinear && !profile.norm.empty()) || cell_norm) {
    slot = &times.fused_with_norm;
    if (counts) ++counts->fused_with_norm;
  } else if (node.op == OpType::kFusedLinear) {
    slot = &times.fused_linear;
  } else if (node.op == OpType::kLinear) {
    slot = &times.linear;
  } else if (node.op == OpType::kAttention) {
    slot = &times.attention;
  }
  *slot += ms;
  if (counts) ++counts->total;
}

// One compiled variant and the session that runs it.
struct Runner {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
  bool stateful = false;
};

Status run_once(Runner& runner, const std::vector<InputBuffer>& inputs, size_t length,
                double* elapsed_ms) {
  Session& session = *runner.session;
  if (runner.stateful && session.position() + length > session.model().max_sequence_length()) {
    session.reset();
  }
  for (const InputBuffer& input : inputs) {
    NORMRT_RETURN_IF_ERROR(session.set_input(input.name, input.data(), input.bytes()));
  }
  const auto start = Clock::now();
  Status status = session.run();
  const auto stop = Clock::now();
  if (elapsed_ms) *elapsed_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return status;
}

Expected<Runner> compile_variant(const Graph& stored, const NormReplacement& norm, bool fused,
                                 const MeasureSettings& settings) {
  Graph graph = stored;
  NORMRT_RETURN_IF_ERROR(replace_norm(graph, norm));
  ModelOptions options;
  options.isa = settings.isa;
  options.fuse = fused;
  options.fold_norm_affine = fused;
  options.bf16_activations = settings.bf16_activations;
  NORMRT_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model,
                          compile_model(std::move(graph), options));
  Runner runner;
  runner.model = model;
  runner.stateful = !runner.model->states().empty();
  SessionOptions session_options;
  session_options.threads = settings.threads;
  session_options.profile = true;
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                          Session::create(runner.model, session_options));
  runner.session = std::move(session);
  return runner;
}

}  // namespace

std::string stored_norm_label(const Graph& graph) {
  std::set<std::string> labels;
  for (const Node& node : graph.nodes) {
    std::string label = node_norm_label(node);
    if (!label.empty()) labels.insert(label);
  }
  if (labels.empty()) return "none";
  return labels.size() == 1 ? *labels.begin() : "mixed";
}

std::string matrix_dtype_label(const Graph& graph) {
  std::string label = "f32";
  for (const Attribute& entry : graph.metadata) {
    const auto* text = std::get_if<std::string>(&entry.value);
    if (entry.name == "dtype" && text != nullptr) label = *text;
  }
  size_t int8 = 0, other = 0;
  for (const Node& node : graph.nodes) {
    if (node.op != OpType::kLinear && node.op != OpType::kFusedLinear) continue;
    if (node.inputs.size() < 2 || node.inputs[1] == kNoTensor) continue;
    (graph.tensors[node.inputs[1]].dtype == DataType::kInt8 ? int8 : other) += 1;
  }
  if (int8 > 0 && other > 0) {
    label += " (" + std::to_string(int8) + " int8, " + std::to_string(other) + " not)";
  }
  return label;
}

bool graph_is_stateful(const Graph& graph) {
  return std::any_of(graph.tensors.begin(), graph.tensors.end(),
                     [](const Tensor& t) { return t.kind == TensorKind::kState; });
}

Expected<ModelResult> measure_model(const Graph& stored, const std::string& name,
                                    const MeasureSettings& settings, const ProgressFn& progress) {
  const auto start = Clock::now();
  ModelResult result;
  result.name = name;
  result.stored_norm = stored_norm_label(stored);
  result.dtype = matrix_dtype_label(stored);
  result.sequence_length = settings.sequence_length;
  result.stateful = graph_is_stateful(stored);

  Expected<std::vector<InputBuffer>> inputs =
      make_bench_inputs(stored, settings.sequence_length, /*seed=*/0x5eed);
  if (!inputs) return Status::error(name + ": " + inputs.status().message());

  std::vector<Runner> runners;
  for (const NormReplacement& norm : settings.norms) {
    for (bool fused : {true, false}) {
      if (!fused && !settings.unfused) continue;
      VariantResult variant;
      variant.norm = norm;
      variant.fused = fused;
      variant.as_stored = norm_replacement_label(norm) == result.stored_norm;
      Expected<Runner> runner = compile_variant(stored, norm, fused, settings);
      if (!runner) {
        return Status::error(name + ", " + variant.label() + ": " + runner.status().message());
      }
      result.isa = std::string(runner->model->isa());
      result.bf16_activations = runner->model->bf16_activations();
      if (result.kernels.empty()) {
        for (const KernelChoice& choice : runner->model->kernel_choices()) {
          result.kernels.emplace_back(choice.node, choice.kernel);
        }
      }
      runners.push_back(std::move(runner).value());
      result.variants.push_back(std::move(variant));
    }
  }
  result.compile_seconds = seconds_since(start);
  result.inputs = describe_inputs(stored, *inputs);
  if (progress) {
    progress(name + ": compiled " + std::to_string(runners.size()) + " variants in " +
             format_seconds(result.compile_seconds) + "; inputs " + result.inputs);
  }

  const size_t count = runners.size(), length = settings.sequence_length;
  auto fail = [&](size_t index, const Status& s) {
    return Status::error(name + ", " + result.variants[index].label() + ": " + s.message());
  };
  for (size_t round = 0; round < settings.warmup; ++round) {
    for (size_t i = 0; i < count; ++i) {
      if (Status s = run_once(runners[(round + i) % count], *inputs, length, nullptr); !s) {
        return fail((round + i) % count, s);
      }
    }
  }
  for (Runner& runner : runners) runner.session->profile_reset();

  auto last_report = Clock::now();
  for (size_t round = 0; round < settings.runs; ++round) {
    const auto round_start = Clock::now();
    for (size_t i = 0; i < count; ++i) {
      const size_t index = (round + i) % count;
      double ms = 0;
      if (Status s = run_once(runners[index], *inputs, length, &ms); !s) return fail(index, s);
      result.variants[index].samples_ms.push_back(ms);
    }
    result.rounds = round + 1;
    const double round_seconds = seconds_since(round_start);
    if (settings.budget_seconds > 0 && round + 1 < settings.runs &&
        seconds_since(start) + round_seconds > settings.budget_seconds) {
      result.stopped_by_budget = true;
      break;
    }
    if (progress && std::chrono::duration<double>(Clock::now() - last_report).count() > 5) {
      progress(name + ": round " + std::to_string(round + 1) + " of " +
               std::to_string(settings.runs));
      last_report = Clock::now();
    }
  }

  for (size_t i = 0; i < count; ++i) {
    const Graph& graph = runners[i].model->impl().graph;
    const std::vector<NodeProfile>& profile = runners[i].session->profile();
    VariantResult& variant = result.variants[i];
    for (size_t n = 0; n < profile.size() && n < graph.nodes.size(); ++n) {
      const double ms = profile[n].runs == 0
                            ? 0.0
                            : double(profile[n].nanoseconds) * 1e-6 / double(profile[n].runs);
      add_node_time(profile[n], graph.nodes[n], ms, variant.node_ms, &variant.nodes);
    }
  }
  summarize(result);
  return result;
}

}  // namespace normrt::bench
