#include <utility>

#include "runtime/exec/compiled_model.h"
#include "runtime/format/model_file.h"

namespace normrt {

Expected<std::shared_ptr<const Model>> Model::load(const std::string& path,
                                                   const ModelOptions& options) {
  Expected<Graph> graph = load_model_file(path);  // validated, weights mapped
  if (!graph) return graph.status();
  Expected<std::shared_ptr<const Model>> model = compile_model(std::move(graph).value(), options);
  if (!model) return Status::error(path + ": " + model.status().message());
  return model;
}

}  // namespace normrt
