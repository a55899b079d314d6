#include "models/samples/mixed_blocks.h"

#include <cmath>
#include <random>
#include <string>

#include "runtime/graph/graph_builder.h"

namespace normrt::samples {
namespace {

std::vector<Attribute> eps_attribute() { return {{"eps", kMixedBlocksEps}}; }

}  // namespace

std::vector<float> random_values(size_t count, float scale, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(random);
  return values;
}

MixedBlocksWeights mixed_blocks_weights(size_t d, uint32_t seed) {
  MixedBlocksWeights w;
  w.d = d;
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  w.w1 = random_values(d * d, scale, seed + 1);
  w.b1 = random_values(d, 0.1f, seed + 2);
  w.ln_gain = random_values(d, 0.5f, seed + 3);
  for (float& g : w.ln_gain) g += 1.0f;
  w.ln_bias = random_values(d, 0.1f, seed + 4);
  w.w2 = random_values(d * d, scale, seed + 5);
  w.b2 = random_values(d, 0.1f, seed + 6);
  w.rms2_gain = random_values(d, 0.5f, seed + 7);
  for (float& g : w.rms2_gain) g += 1.0f;
  w.pre_gain = random_values(d, 0.5f, seed + 8);
  for (float& g : w.pre_gain) g += 1.0f;
  w.wq = random_values(d * d, scale, seed + 9);
  w.wk = random_values(d * d, scale, seed + 10);
  return w;
}

Graph mixed_blocks(const MixedBlocksWeights& w, int64_t max_sequence_length, bool bf16) {
  const auto d = static_cast<int64_t>(w.d);
  const Shape rows = {kSequenceDim, d};
  GraphBuilder b;
  auto matrix = [&](const char* name, const std::vector<float>& values) {
    return bf16 ? b.weight_bf16(name, {d, d}, values) : b.weight(name, {d, d}, values);
  };
  TensorId x = b.input("x", DataType::kF32, rows);
  TensorId w1 = matrix("w1", w.w1), w2 = matrix("w2", w.w2);
  TensorId wq = matrix("wq", w.wq), wk = matrix("wk", w.wk);
  TensorId b1 = b.weight("b1", {d}, w.b1), b2 = b.weight("b2", {d}, w.b2);
  TensorId ln_gain = b.weight("ln_gain", {d}, w.ln_gain);
  TensorId ln_bias = b.weight("ln_bias", {d}, w.ln_bias);
  TensorId rms2_gain = b.weight("rms2_gain", {d}, w.rms2_gain);
  TensorId pre_gain = b.weight("pre_gain", {d}, w.pre_gain);

  TensorId t1 = b.node(OpType::kLinear, "fc1", {x, w1, b1}, {rows});
  TensorId s1 = b.node(OpType::kAdd, "residual1", {t1, x}, {rows});
  TensorId h = b.node(OpType::kLayerNorm, "ln1", {s1, ln_gain, ln_bias}, {rows}, eps_attribute());
  TensorId t2 = b.node(OpType::kLinear, "fc2", {h, w2, b2}, {rows});
  TensorId r2 = b.node(OpType::kRmsNorm, "rms2", {t2, rms2_gain}, {rows}, eps_attribute());
  TensorId y =
      b.node(OpType::kActivation, "act2", {r2}, {rows}, {{"activation", std::string("silu")}});
  TensorId n = b.node(OpType::kRmsNorm, "pre_norm", {y, pre_gain}, {rows}, eps_attribute());
  TensorId q = b.node(OpType::kLinear, "q", {n, wq}, {rows});
  TensorId k = b.node(OpType::kLinear, "k", {n, wk}, {rows});
  TensorId qk = b.node(OpType::kAdd, "q_plus_k", {q, k}, {rows});
  TensorId out = b.node(OpType::kAdd, "residual2", {qk, y}, {rows});
  b.rename(out, "out");
  b.output(out);
  return b.finish(max_sequence_length);
}

Graph running_sum(int64_t d) {
  GraphBuilder b;
  TensorId x = b.input("x", DataType::kF32, {1, d});
  TensorId h = b.state("h", DataType::kF32, {1, d});
  TensorId out = b.node(OpType::kAdd, "accumulate", {x, h}, {{1, d}});
  b.rename(out, "out");
  b.output(out);
  b.state_update(h, out);
  return b.finish(1);
}

}  // namespace normrt::samples
