#pragma once
// A plain double-precision BERT encoder (HF BertModel's equations, written
// out as loops) over the tensors of a WeightSource: the reference for the
// norm variants PyTorch has no module for. Checked itself against PyTorch's
// outputs in the layer_norm case.
#include <string>
#include <vector>

#include "models/transformer/bert_encoder.h"
#include "models/weight_source.h"

namespace normrt::test {

struct ReferenceNorm {
  std::string kind = "layer_norm";  ///< | "rms_norm" | "prms_norm" (gain only)
  double p = 0.0;
};

/// last_hidden_state [S, H], row-major. Tensors must exist (F32 or F16).
/// `token_types` [S] (empty: all 0) selects the token type embedding rows.
std::vector<double> bert_reference(const WeightSource& weights, const std::string& prefix,
                                   const BertConfig& config, const std::vector<int32_t>& ids,
                                   const ReferenceNorm& norm,
                                   const std::vector<int32_t>& token_types = {});

}  // namespace normrt::test
