#include "norm_chain.h"

#include <cmath>

#include "runtime/graph/graph_builder.h"
#include "runtime/graph/norm_attributes.h"

namespace normrt::test {
namespace {

// y = norm(t + r) for every row, in double (docs/ops.md equations).
std::vector<double> normalized(const ChainWeights& w, const ChainNorm& norm,
                               const std::vector<float>& x, const std::vector<float>& r,
                               size_t rows) {
  const size_t k = w.k, n = w.n;
  std::vector<double> y(rows * n);
  for (size_t row = 0; row < rows; ++row) {
    std::vector<double> s(n);
    for (size_t j = 0; j < n; ++j) {
      double t = w.b1[j];
      for (size_t i = 0; i < k; ++i) t += double(x[row * k + i]) * double(w.w1[j * k + i]);
      s[j] = t + (norm.residual ? double(r[row * n + j]) : 0.0);
    }
    double mean = 0, stat = 0;
    if (norm.op == OpType::kLayerNorm) {
      for (double v : s) mean += v;
      mean /= double(n);
      for (double v : s) stat += (v - mean) * (v - mean);
      stat /= double(n);
    } else {
      // pRMSNorm: the first ⌊p·n⌋ values (p·n in double, as int(d * p)).
      const size_t count =
          norm.op == OpType::kPRmsNorm ? size_t(std::floor(norm.p * double(n))) : n;
      for (size_t j = 0; j < count; ++j) stat += s[j] * s[j];
      stat /= double(count);
    }
    const double d = norm.eps_placement == "inside_sqrt" ? std::sqrt(stat + norm.eps)
                                                         : std::sqrt(stat) + norm.eps;
    for (size_t j = 0; j < n; ++j) {
      const double g = norm.gain_convention == "one_plus" ? 1.0 + w.gain[j] : w.gain[j];
      y[row * n + j] = (s[j] - mean) / d * g + (norm.bias ? double(w.bias[j]) : 0.0);
    }
  }
  return y;
}

}  // namespace

std::vector<float> chain_random(size_t count, float scale, uint32_t seed) {
  std::vector<float> values(count);
  uint32_t state = seed * 2654435761u + 12345u;
  for (float& v : values) {
    state = state * 1664525u + 1013904223u;
    v = scale * (float((state >> 8) & 0xFFFF) / 32768.0f - 1.0f);
  }
  return values;
}

ChainWeights chain_weights(size_t k, size_t n, size_t m, uint32_t seed) {
  ChainWeights w;
  w.k = k;
  w.n = n;
  w.m = m;
  w.w1 = chain_random(n * k, 0.5f, seed + 1);
  w.b1 = chain_random(n, 0.2f, seed + 2);
  for (float& b : w.b1) b += 0.5f;
  w.gain = chain_random(n, 0.3f, seed + 3);
  for (float& g : w.gain) g += 1.0f;
  w.bias = chain_random(n, 0.2f, seed + 4);
  w.w2 = chain_random(m * n, 0.3f, seed + 5);
  w.b2 = chain_random(m, 0.1f, seed + 6);
  return w;
}

Graph make_chain(const ChainWeights& w, const ChainNorm& norm) {
  const auto k = int64_t(w.k), n = int64_t(w.n), m = int64_t(w.m);
  GraphBuilder b;
  TensorId x = b.input("x", DataType::kF32, {kSequenceDim, k});
  TensorId r = norm.residual ? b.input("r", DataType::kF32, {kSequenceDim, n}) : kNoTensor;
  TensorId w1 = b.weight("fc1.weight", {n, k}, w.w1);
  TensorId b1 = b.weight("fc1.bias", {n}, w.b1);
  TensorId gain = b.weight("norm.gain", {n}, w.gain);
  TensorId bias = norm.bias ? b.weight("norm.bias", {n}, w.bias) : kNoTensor;
  TensorId w2 = b.weight("fc2.weight", {m, n}, w.w2);
  TensorId b2 = b.weight("fc2.bias", {m}, w.b2);

  TensorId t = b.node(OpType::kLinear, "fc1", {x, w1, b1}, {{kSequenceDim, n}});
  std::vector<Attribute> attributes = {{"eps", norm.eps},
                                       {"eps_placement", norm.eps_placement},
                                       {"gain_convention", norm.gain_convention}};
  if (norm.op == OpType::kPRmsNorm) attributes.push_back({"p", norm.p});
  std::vector<TensorId> operands = {t, gain, bias};
  if (norm.residual) operands.push_back(r);
  TensorId y = b.node(norm.op, "norm", operands, {{kSequenceDim, n}}, attributes);
  TensorId out = b.node(OpType::kLinear, "fc2", {y, w2, b2}, {{kSequenceDim, m}});
  b.rename(out, "out");
  b.output(out);
  b.metadata("norm", std::string(norm_op_kind(norm.op)));
  if (norm.op == OpType::kPRmsNorm) b.metadata("p", norm.p);
  return b.finish(8);
}

std::vector<double> chain_reference(const ChainWeights& w, const ChainNorm& norm,
                                    const std::vector<float>& x, const std::vector<float>& r,
                                    size_t rows) {
  const std::vector<double> y = normalized(w, norm, x, r, rows);
  std::vector<double> out(rows * w.m);
  for (size_t row = 0; row < rows; ++row) {
    for (size_t i = 0; i < w.m; ++i) {
      double sum = w.b2[i];
      for (size_t j = 0; j < w.n; ++j) sum += y[row * w.n + j] * double(w.w2[i * w.n + j]);
      out[row * w.m + i] = sum;
    }
  }
  return out;
}

std::vector<double> chain_tolerance(const ChainWeights& w, const ChainNorm& norm,
                                    const std::vector<float>& x, const std::vector<float>& r,
                                    size_t rows) {
  const std::vector<double> y = normalized(w, norm, x, r, rows);
  std::vector<double> tolerance(rows * w.m);
  for (size_t row = 0; row < rows; ++row) {
    for (size_t i = 0; i < w.m; ++i) {
      double magnitude = std::fabs(w.b2[i]);
      for (size_t j = 0; j < w.n; ++j) {
        magnitude += std::fabs(y[row * w.n + j] * double(w.w2[i * w.n + j]));
      }
      tolerance[row * w.m + i] = 1e-4 * magnitude;
    }
  }
  return tolerance;
}

}  // namespace normrt::test
