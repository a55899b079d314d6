#include "models/transformer/encoder_plan.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "models/architecture_support.h"

namespace normrt {

Expected<EncoderPlan> plan_encoder(BertConfig config, const ModelBuildOptions& options,
                                   const char* family, const char* architecture) {
  EncoderPlan plan;
  plan.config = std::move(config);
  NORMRT_ASSIGN_OR_RETURN(plan.build.norm, transformer_norm(options, "layer_norm", family));
  NORMRT_RETURN_IF_ERROR(check_p_option(plan.build.norm, options.p, plan.config.hidden_size));
  plan.build.p = options.p;
  NORMRT_RETURN_IF_ERROR(check_pooling(options.pooling));
  plan.build.pooling = options.pooling;
  plan.build.max_sequence_length = options.max_sequence_length;
  plan.build.architecture = architecture;
  return plan;
}

std::vector<std::string> architecture_classes(const JsonConfig& config) {
  std::vector<std::string> classes;
  const nlohmann::json& list = config.root().value("architectures", nlohmann::json());
  if (!list.is_array()) return classes;
  for (const nlohmann::json& name : list)
    if (name.is_string()) classes.push_back(name.get<std::string>());
  return classes;
}

bool names_class(const JsonConfig& config, const std::vector<std::string>& classes) {
  for (const std::string& name : architecture_classes(config))
    if (std::find(classes.begin(), classes.end(), name) != classes.end()) return true;
  return false;
}

Expected<BuiltModel> build_encoder_plan(const EncoderPlan& plan, const WeightSource& weights,
                                        const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(Graph graph,
                          build_bert_encoder(plan.config, weights, options.dtype, plan.build));
  return one_graph(std::move(graph), "layer_norm");
}

}  // namespace normrt
