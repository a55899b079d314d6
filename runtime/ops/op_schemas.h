#pragma once
// The schema of every op, each defined in its own file (op_<family>.cc);
// find_op_schema() (op_registry.cc) indexes them by OpType.
#include "runtime/ops/op.h"

namespace normrt {

extern const OpSchema kLinearSchema;      // op_linear.cc
extern const OpSchema kLayerNormSchema;   // op_norm.cc
extern const OpSchema kRmsNormSchema;     // op_norm.cc
extern const OpSchema kPRmsNormSchema;    // op_norm.cc
extern const OpSchema kAddSchema;         // op_elementwise.cc
extern const OpSchema kMulSchema;         // op_elementwise.cc
extern const OpSchema kActivationSchema;  // op_activation.cc
extern const OpSchema kEmbeddingSchema;   // op_embedding.cc
extern const OpSchema kSoftmaxSchema;     // op_softmax.cc
extern const OpSchema kAttentionSchema;   // op_attention.cc
extern const OpSchema kConcatSchema;      // op_layout.cc
extern const OpSchema kSplitSchema;       // op_layout.cc
extern const OpSchema kSliceSchema;       // op_layout.cc
/// Whether a valid Slice node takes rows [0, 1) of the sequence axis S: the
/// first token, which in a batch is each sequence's first row (op_layout.cc).
bool slice_takes_first_token(const Graph& graph, const Node& node);
extern const OpSchema kLstmCellSchema;           // op_lstm_cell.cc
extern const OpSchema kGruCellBaSchema;          // op_gru_cell.cc
extern const OpSchema kFusedLinearSchema;        // op_fused_linear.cc
extern const OpSchema kRopeSchema;               // op_rope.cc
extern const OpSchema kMeanPoolSchema;           // op_pool.cc
extern const OpSchema kL2NormalizeSchema;        // op_pool.cc
extern const OpSchema kAdditiveAttentionSchema;  // op_additive_attention.cc
extern const OpSchema kGruRecurrenceChoSchema;   // op_gru_recurrence.cc
extern const OpSchema kConv2dSchema;             // op_conv.cc
extern const OpSchema kMaxPool2dSchema;          // op_pool2d.cc
extern const OpSchema kAvgPool2dSchema;          // op_pool2d.cc
extern const OpSchema kGlobalAvgPoolSchema;      // op_pool2d.cc
extern const OpSchema kAbsSchema;                // op_abs.cc
extern const OpSchema kMatMulSchema;             // op_matmul.cc
extern const OpSchema kOrderViolationSchema;     // op_order_violation.cc
extern const OpSchema kMixtureDensitySchema;     // op_mixture_density.cc
extern const OpSchema kMixtureSampleSchema;      // op_mixture_sample.cc

}  // namespace normrt
