#include "runtime_test_graphs.h"

#include <cmath>
#include <random>

#include "base/bf16.h"

namespace normrt::test {
namespace {

constexpr double kEps = 1e-5;

std::vector<Attribute> eps_attribute() { return {{"eps", kEps}}; }

std::vector<double> linear(const std::vector<double>& x, size_t rows, const std::vector<float>& w,
                           const std::vector<float>* b, size_t k, size_t n, bool bf16) {
  std::vector<double> y(rows * n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < n; ++c) {
      double sum = b ? (*b)[c] : 0.0;
      for (size_t i = 0; i < k; ++i) {
        float weight = bf16 ? float_from_bf16(bf16_from_float(w[c * k + i])) : w[c * k + i];
        sum += x[r * k + i] * weight;
      }
      y[r * n + c] = sum;
    }
  }
  return y;
}

void layer_norm(std::vector<double>& x, size_t rows, size_t n, const std::vector<float>& g,
                const std::vector<float>& b) {
  for (size_t r = 0; r < rows; ++r) {
    double* row = &x[r * n];
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; ++i) mean += row[i];
    mean /= n;
    for (size_t i = 0; i < n; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= n;
    for (size_t i = 0; i < n; ++i) row[i] = (row[i] - mean) / std::sqrt(var + kEps) * g[i] + b[i];
  }
}

void rms_norm(std::vector<double>& x, size_t rows, size_t n, const std::vector<float>& g) {
  for (size_t r = 0; r < rows; ++r) {
    double* row = &x[r * n];
    double ms = 0;
    for (size_t i = 0; i < n; ++i) ms += row[i] * row[i];
    ms /= n;
    for (size_t i = 0; i < n; ++i) row[i] = row[i] / std::sqrt(ms + kEps) * g[i];
  }
}

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
  TensorId y = b.node(OpType::kActivation, "act2", {r2}, {rows},
                      {{"activation", std::string("silu")}});
  TensorId n = b.node(OpType::kRmsNorm, "pre_norm", {y, pre_gain}, {rows}, eps_attribute());
  TensorId q = b.node(OpType::kLinear, "q", {n, wq}, {rows});
  TensorId k = b.node(OpType::kLinear, "k", {n, wk}, {rows});
  TensorId qk = b.node(OpType::kAdd, "q_plus_k", {q, k}, {rows});
  TensorId out = b.node(OpType::kAdd, "residual2", {qk, y}, {rows});
  b.rename(out, "out");
  b.output(out);
  return b.finish(max_sequence_length);
}

std::vector<double> mixed_blocks_reference(const MixedBlocksWeights& w, bool bf16,
                                           const std::vector<float>& x, size_t s) {
  const size_t d = w.d;
  std::vector<double> input(x.begin(), x.end());
  std::vector<double> h = linear(input, s, w.w1, &w.b1, d, d, bf16);
  for (size_t i = 0; i < h.size(); ++i) h[i] += input[i];
  layer_norm(h, s, d, w.ln_gain, w.ln_bias);
  std::vector<double> y = linear(h, s, w.w2, &w.b2, d, d, bf16);
  rms_norm(y, s, d, w.rms2_gain);
  for (double& v : y) v = v / (1.0 + std::exp(-v));
  std::vector<double> n = y;
  rms_norm(n, s, d, w.pre_gain);
  std::vector<double> q = linear(n, s, w.wq, nullptr, d, d, bf16);
  std::vector<double> k = linear(n, s, w.wk, nullptr, d, d, bf16);
  for (size_t i = 0; i < q.size(); ++i) q[i] += k[i] + y[i];
  return q;
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

}  // namespace normrt::test
