#include "tools/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace normrt::bench {

std::string VariantResult::label() const {
  return norm_replacement_label(norm) + (fused ? " fused" : " unfused");
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(q * static_cast<double>(values.size()));
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return values[std::min(index, values.size() - 1)];
}

void summarize(ModelResult& model) {
  for (VariantResult& v : model.variants) {
    const std::vector<double>& s = v.samples_ms;
    v.p50_ms = percentile(s, 0.50);
    v.p99_ms = percentile(s, 0.99);
    v.min_ms = s.empty() ? 0 : *std::min_element(s.begin(), s.end());
    v.max_ms = s.empty() ? 0 : *std::max_element(s.begin(), s.end());
    v.mean_ms = s.empty() ? 0 : std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
    const double total = v.node_ms.total();
    v.norm_share = total > 0 ? v.node_ms.norm / total : 0;
    v.fused_with_norm_share = total > 0 ? v.node_ms.fused_with_norm / total : 0;
  }
  for (VariantResult& v : model.variants) {
    v.ratio_vs_layer_norm = -1;
    for (const VariantResult& base : model.variants) {
      if (base.fused == v.fused && base.norm.kind == NormKind::kLayerNorm && base.p50_ms > 0) {
        v.ratio_vs_layer_norm = v.p50_ms / base.p50_ms;
      }
    }
  }
}

}  // namespace normrt::bench
