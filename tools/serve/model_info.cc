// GET /v1/model and GET /v1/health.
//
// /v1/model: {"model", "isa", "max_sequence_length", "inputs", "outputs",
// "states" (each {"name", "dtype", "shape"}, -1 in a shape standing for the
// sequence length S), "metadata" (the file's typed metadata: architecture,
// norm, eps, ...; a bytes entry such as the stored tokenizer as {"bytes": n}), "passes",
// "workers", "generation" (1, +1 per reload), "stateless_runs", "embeddings"}.
// /v1/health: {"status", "version", "workers", "busy", "waiting", "generation"}.
// GET /metrics: metrics.h.
#include <nlohmann/json.hpp>

#include "runtime/exec/compiled_model.h"
#include "tools/serve/model_service.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

json tensor_list(const std::vector<TensorInfo>& tensors) {
  json list = json::array();
  for (const TensorInfo& info : tensors) {
    list.push_back({{"name", info.name}, {"dtype", info.dtype}, {"shape", info.shape}});
  }
  return list;
}

json metadata_object(const Model& model) {
  json metadata = json::object();
  for (const Attribute& entry : model.impl().graph.metadata) {
    const AttributeValue& value = entry.value;
    if (const auto* integer = std::get_if<int64_t>(&value)) metadata[entry.name] = *integer;
    if (const auto* real = std::get_if<double>(&value)) metadata[entry.name] = *real;
    if (const auto* text = std::get_if<std::string>(&value)) metadata[entry.name] = *text;
    if (const auto* list = std::get_if<std::vector<int64_t>>(&value)) metadata[entry.name] = *list;
    // Opaque bytes (a stored tokenizer): their size, not their content.
    if (const auto* blob = std::get_if<Blob>(&value))
      metadata[entry.name] = json{{"bytes", blob->bytes.size()}};
  }
  return metadata;
}

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

Reply ModelService::model_info() const {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const Model& model = generation->model();
  const PassSummary& passes = model.passes();
  json info = {
      {"model", options_.model_name},
      {"isa", std::string(model.isa())},
      {"max_sequence_length", model.max_sequence_length()},
      {"inputs", tensor_list(model.inputs())},
      {"outputs", tensor_list(model.outputs())},
      {"states", tensor_list(model.states())},
      {"metadata", metadata_object(model)},
      {"passes",
       {{"nodes_before", passes.nodes_before},
        {"nodes_after", passes.nodes_after},
        {"fused_linear_nodes", passes.fused_linear_nodes},
        {"fused_conv_nodes", passes.fused_conv_nodes},
        {"folded_norms", passes.folded_norms},
        {"arena_bytes", passes.arena_bytes}}},
      {"workers", generation->pool().size()},
      {"generation", generation->number()},
      {"stateless_runs", true},
      {"embeddings", generation->embeds_texts()},
      {"rerank", generation->reranks()},
  };
  return ok_reply(dump(info));
}

Reply ModelService::health() const {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const SessionPool& pool = generation->pool();
  json health = {
      {"status", "ok"},      {"version", normrt::version()}, {"workers", pool.size()},
      {"busy", pool.busy()}, {"waiting", pool.waiting()},    {"generation", generation->number()}};
  return ok_reply(dump(health));
}

}  // namespace normrt::serve

namespace normrt::serve {

Reply ModelService::metrics_text(const InflightGauge& inflight) const {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const SessionPool& pool = generation->pool();
  ServeMetrics::Gauges gauges;
  gauges.workers = pool.size();
  gauges.busy = pool.busy();
  gauges.waiting = pool.waiting();
  gauges.generation = generation->number();
  gauges.inflight = inflight;
  gauges.version = normrt::version();
  gauges.isa = std::string(generation->model().isa());
  Reply reply = ok_reply(metrics_.render(gauges));
  reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
  return reply;
}

}  // namespace normrt::serve
