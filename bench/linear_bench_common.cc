#include "bench/linear_bench_common.h"

#include "bench/read_floor.h"
#include "kernels/norm/norm.h"

namespace normrt::bench {
namespace {

Expected<std::vector<PackedWeights>*> packed_for(Operands& ops, const LinearVariant& variant) {
  auto& copies = ops.packed[variant.name];
  while (copies.empty() || copies.size() < ops.copies_for(copies.front().size_bytes())) {
    NORMRT_ASSIGN_OR_RETURN(PackedWeights p, pack_weights(ops.w.data(), ops.n, ops.k, variant));
    copies.push_back(std::move(p));
  }
  return &copies;
}

}  // namespace

Operands& operands_for(const Shape& shape) {
  static std::unique_ptr<Operands> current;
  if (!current || current->k != shape.k || current->n != shape.n) {
    current.reset();  // free the previous shape first
    current = std::make_unique<Operands>(shape.k, shape.n);
  }
  return *current;
}

std::vector<PackedWeights>* rotation_or_skip(benchmark::State& state, Operands& ops,
                                             const LinearVariant& variant) {
  auto copies = packed_for(ops, variant);
  if (!copies) {
    state.SkipWithError(copies.status().message().c_str());
    return nullptr;
  }
  return copies.value();
}

std::vector<PackedWeights>* floor_rotation_or_skip(benchmark::State& state, Operands& ops,
                                                   const LinearVariant& variant) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("needs AVX-512");
    return nullptr;
  }
  return rotation_or_skip(state, ops, variant);
}

const LinearVariant* default_variant(WeightType type) {
  const std::vector<Isa> isas = runnable_isas();
  for (const LinearVariant& v : linear_variants()) {
    if (v.isa == isas.back() && v.type == type && linear_variant_runnable(v)) return &v;
  }
  return nullptr;
}

LinearSummaryInput& summary() {
  static LinearSummaryInput input;
  return input;
}

void set_counters(benchmark::State& state, double weight_bytes, size_t copies) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * weight_bytes));
  state.counters["copies"] = static_cast<double>(copies);
}

uint32_t read_floor(const Operands& ops, const PackedWeights& w) {
  return ops.beyond_l2() ? read_sum<true>(w.data(), w.size_bytes())
                         : read_sum<false>(w.data(), w.size_bytes());
}

Expected<std::vector<std::unique_ptr<OneDnnLinear>>*> onednn_for(Operands& ops, WeightType type,
                                                                 size_t m) {
  auto& copies = ops.onednn[{type, m}];
  if (copies.empty()) {
    do {
      NORMRT_ASSIGN_OR_RETURN(auto made,
                              OneDnnLinear::create(ops.w.data(), ops.n, ops.k, type, m, true));
      copies.push_back(std::move(made));
    } while (copies.size() < ops.copies_for(copies.front()->weight_bytes()));
  }
  return &copies;
}

Expected<OneDnnLayerNorm*> onednn_norm_for(Operands& ops, size_t m) {
  auto& layer_norm = ops.onednn_norm[m];
  if (!layer_norm) {
    NORMRT_ASSIGN_OR_RETURN(
        auto ln, OneDnnLayerNorm::create(m, ops.n, NormParams{}.eps, ops.y.data(), ops.y2.data(),
                                         ops.gain.data(), ops.norm_bias.data()));
    layer_norm = std::move(ln);
  }
  return layer_norm.get();
}

void run_linear(Operands& ops, const PackedWeights& w, size_t m) {
  Status s = linear(w, ops.x.data(), m, ops.k, ops.y.data(), ops.n, ops.b.data());
  benchmark::DoNotOptimize(s);
}

void record_paired(benchmark::State& state, const std::string& name, const char* counter,
                   double ratio) {
  if (ratio <= 0) return;
  state.counters[counter] = ratio;
  summary().paired_ratio[name] = ratio;
}

}  // namespace normrt::bench
