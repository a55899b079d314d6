#pragma once
// What the registry entries of the BERT-shaped encoder families (BERT,
// RoBERTa, XLM-R, DistilBERT, MPNet, the sequence classifiers) share: the
// normrt-convert options turned into BertBuildOptions, checked one way
// (--norm against the checkpoint's layer_norm, --p against the width,
// --pooling).
#include <string>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/registry.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/sequence_classifier.h"

namespace normrt {

struct EncoderPlan {
  BertConfig config;
  BertBuildOptions build;
};

/// `family` names the checkpoint in messages ("RoBERTa"); `architecture` is
/// the graph's metadata ("roberta_encoder").
Expected<EncoderPlan> plan_encoder(BertConfig config, const ModelBuildOptions& options,
                                   const char* family, const char* architecture);

/// The classes a config.json's "architectures" list names (empty if absent).
std::vector<std::string> architecture_classes(const JsonConfig& config);

/// True if `config`'s "architectures" names one of `classes`.
bool names_class(const JsonConfig& config, const std::vector<std::string>& classes);

/// build_bert_encoder with the plan, as the single graph of a BuiltModel.
Expected<BuiltModel> build_encoder_plan(const EncoderPlan& plan, const WeightSource& weights,
                                        const ModelBuildOptions& options);

/// A family's plan function: config.json and the options → its EncoderPlan.
using EncoderPlanFn = Expected<EncoderPlan> (*)(const JsonConfig&, const ModelBuildOptions&);

/// The registry's read_config and build of a family planned by `kPlan`.
template <EncoderPlanFn kPlan>
Status read_encoder(const JsonConfig& config, const ModelBuildOptions& options) {
  return kPlan(config, options).status();
}
template <EncoderPlanFn kPlan>
Expected<BuiltModel> build_encoder(const JsonConfig& config, const WeightSource& weights,
                                   const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan plan, kPlan(config, options));
  return build_encoder_plan(plan, weights, options);
}

}  // namespace normrt
