#include "tiny_encoder.h"

#include <string>
#include <vector>

#include "norm_chain.h"
#include "runtime/graph/graph_builder.h"

namespace normrt::test {

Graph tiny_encoder() {
  const int64_t vocab = 50, d = 32, ffn = 64;
  uint32_t seed = 100;
  GraphBuilder b;
  auto weight = [&](const std::string& name, Shape shape, float scale, float offset = 0) {
    size_t count = 1;
    for (int64_t dim : shape) count *= size_t(dim);
    std::vector<float> values = chain_random(count, scale, ++seed);
    for (float& v : values) v += offset;
    return b.weight(name, shape, values);
  };
  auto linear = [&](const std::string& name, TensorId x, int64_t in, int64_t out) {
    return b.node(
        OpType::kLinear, name,
        {x, weight(name + ".weight", {out, in}, 0.3f), weight(name + ".bias", {out}, 0.1f)},
        {{kSequenceDim, out}});
  };
  auto layer_norm = [&](const std::string& name, TensorId x, TensorId residual) {
    std::vector<TensorId> operands = {x, weight(name + ".gain", {d}, 0.1f, 1.0f),
                                      weight(name + ".bias", {d}, 0.1f)};
    if (residual != kNoTensor) operands.push_back(residual);
    return b.node(OpType::kLayerNorm, name, operands, {{kSequenceDim, d}}, {{"eps", 1e-5}});
  };

  TensorId ids = b.input("input_ids", DataType::kI32, {kSequenceDim});
  TensorId x = b.node(OpType::kEmbedding, "embed", {ids, weight("embed.table", {vocab, d}, 0.5f)},
                      {{kSequenceDim, d}});
  TensorId h = layer_norm("embed.norm", x, kNoTensor);
  TensorId q = linear("q", h, d, d), k = linear("k", h, d, d), v = linear("v", h, d, d);
  TensorId c = b.node(OpType::kAttention, "attention", {q, k, v}, {{kSequenceDim, d}},
                      {{"num_heads", int64_t{4}}});
  TensorId a = layer_norm("attention.norm", linear("attention.out", c, d, d), h);
  TensorId up = linear("ffn.up", a, d, ffn);
  TensorId act = b.node(OpType::kActivation, "ffn.act", {up}, {{kSequenceDim, ffn}},
                        {{"activation", std::string("gelu_erf")}});
  TensorId o = layer_norm("ffn.norm", linear("ffn.down", act, ffn, d), a);
  TensorId pooled = b.node(OpType::kMeanPool, "pool", {o}, {{1, d}});
  b.rename(pooled, "embedding");
  b.output(pooled);
  b.metadata("architecture", std::string("tiny_encoder"));
  b.metadata("norm", std::string("layer_norm"));
  return b.finish(8);
}

}  // namespace normrt::test
