// GET /v1/model and GET /v1/health.
//
// /v1/model: {"model", "isa", "max_sequence_length", "inputs", "outputs",
// "states" (each {"name", "dtype", "shape"}, -1 in a shape standing for the
// sequence length S), "metadata" (the file's typed metadata: architecture,
// norm, eps, ...), "passes", "workers", "stateless_runs", "embeddings"}.
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
    std::visit([&](const auto& value) { metadata[entry.name] = value; }, entry.value);
  }
  return metadata;
}

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

Reply ModelService::model_info() const {
  const PassSummary& passes = model_->passes();
  json info = {
      {"model", options_.model_name},
      {"isa", std::string(model_->isa())},
      {"max_sequence_length", model_->max_sequence_length()},
      {"inputs", tensor_list(model_->inputs())},
      {"outputs", tensor_list(model_->outputs())},
      {"states", tensor_list(model_->states())},
      {"metadata", metadata_object(*model_)},
      {"passes",
       {{"nodes_before", passes.nodes_before},
        {"nodes_after", passes.nodes_after},
        {"fused_linear_nodes", passes.fused_linear_nodes},
        {"fused_conv_nodes", passes.fused_conv_nodes},
        {"folded_norms", passes.folded_norms},
        {"arena_bytes", passes.arena_bytes}}},
      {"workers", pool_->size()},
      {"stateless_runs", true},
      {"embeddings", embeddings_enabled()},
  };
  return Reply{200, dump(info)};
}

Reply ModelService::health() const {
  json health = {{"status", "ok"},
                 {"workers", pool_->size()},
                 {"busy", pool_->busy()},
                 {"waiting", pool_->waiting()}};
  return Reply{200, dump(health)};
}

}  // namespace normrt::serve
