#include "runtime/ops/op_schemas.h"

namespace normrt {

const OpSchema* find_op_schema(OpType type) {
  static const OpSchema* const kSchemas[] = {&kLinearSchema,
                                             &kLayerNormSchema,
                                             &kRmsNormSchema,
                                             &kPRmsNormSchema,
                                             &kAddSchema,
                                             &kMulSchema,
                                             &kActivationSchema,
                                             &kEmbeddingSchema,
                                             &kSoftmaxSchema,
                                             &kAttentionSchema,
                                             &kConcatSchema,
                                             &kSplitSchema,
                                             &kSliceSchema,
                                             &kLstmCellSchema,
                                             &kGruCellBaSchema,
                                             &kFusedLinearSchema,
                                             &kRopeSchema,
                                             &kMeanPoolSchema,
                                             &kL2NormalizeSchema,
                                             &kAdditiveAttentionSchema,
                                             &kGruRecurrenceChoSchema,
                                             &kConv2dSchema,
                                             &kMaxPool2dSchema,
                                             &kAvgPool2dSchema,
                                             &kGlobalAvgPoolSchema,
                                             &kAbsSchema,
                                             &kMatMulSchema,
                                             &kOrderViolationSchema,
                                             &kMixtureDensitySchema,
                                             &kMixtureSampleSchema};
  static_assert(sizeof(kSchemas) / sizeof(kSchemas[0]) == static_cast<size_t>(OpType::kCount));
  auto index = static_cast<size_t>(type);
  if (index >= static_cast<size_t>(OpType::kCount)) return nullptr;
  return kSchemas[index];
}

}  // namespace normrt
