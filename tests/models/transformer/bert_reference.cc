#include "bert_reference.h"

#include <cmath>
#include <cstring>

namespace normrt::test {
namespace {

using Matrix = std::vector<double>;  // row-major

double half_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);  // no inf/NaN in fixtures
}

Matrix values(const WeightSource& weights, const std::string& name) {
  const SourceTensor* t = weights.find(name);
  Matrix out;
  if (t == nullptr) return out;
  const bool half = t->dtype == "F16";
  out.resize(t->size / (half ? 2 : 4));
  for (size_t i = 0; i < out.size(); ++i) {
    if (half) {
      uint16_t bits;
      std::memcpy(&bits, t->data + 2 * i, 2);
      out[i] = half_to_double(bits);
    } else {
      float value;
      std::memcpy(&value, t->data + 4 * i, 4);
      out[i] = value;
    }
  }
  return out;
}

struct Ref {
  const WeightSource& w;
  std::string prefix;
  const BertConfig& c;
  ReferenceNorm norm;
  size_t s = 0;

  Matrix get(const std::string& name) const { return values(w, prefix + name); }

  // y[S, out] = x[S, in] · Wᵀ + b
  Matrix linear(const std::string& module, const Matrix& x, size_t in, size_t out) const {
    Matrix weight = get(module + ".weight"), bias = get(module + ".bias"), y(s * out);
    for (size_t r = 0; r < s; ++r)
      for (size_t o = 0; o < out; ++o) {
        double sum = bias[o];
        for (size_t i = 0; i < in; ++i) sum += x[r * in + i] * weight[o * in + i];
        y[r * out + o] = sum;
      }
    return y;
  }

  Matrix normalize(const std::string& module, Matrix x) const {
    const size_t n = static_cast<size_t>(c.hidden_size);
    Matrix gain = get(module + ".weight"), bias = get(module + ".bias");
    for (size_t r = 0; r < s; ++r) {
      double* row = &x[r * n];
      double mean = 0, stat = 0;
      if (norm.kind == "layer_norm") {
        for (size_t i = 0; i < n; ++i) mean += row[i] / n;
        for (size_t i = 0; i < n; ++i) stat += (row[i] - mean) * (row[i] - mean) / n;
      } else {
        size_t k = norm.kind == "prms_norm" ? static_cast<size_t>(double(n) * norm.p) : n;
        for (size_t i = 0; i < k; ++i) stat += row[i] * row[i] / k;
      }
      const double d = std::sqrt(stat + c.layer_norm_eps);
      for (size_t i = 0; i < n; ++i)
        row[i] = (row[i] - mean) / d * gain[i] + (norm.kind == "layer_norm" ? bias[i] : 0.0);
    }
    return x;
  }

  double act(double x) const {
    if (c.hidden_act == "gelu") return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    if (c.hidden_act == "relu") return x > 0 ? x : 0;
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }

  Matrix attention(const Matrix& q, const Matrix& k, const Matrix& v) const {
    const size_t h = static_cast<size_t>(c.hidden_size);
    const size_t heads = static_cast<size_t>(c.num_attention_heads), d = h / heads;
    Matrix out(s * h, 0.0), scores(s);
    for (size_t head = 0; head < heads; ++head)
      for (size_t i = 0; i < s; ++i) {
        double max = -INFINITY, total = 0;
        for (size_t j = 0; j < s; ++j) {
          double dot = 0;
          for (size_t e = 0; e < d; ++e) dot += q[i * h + head * d + e] * k[j * h + head * d + e];
          scores[j] = dot / std::sqrt(double(d));
          max = std::max(max, scores[j]);
        }
        for (size_t j = 0; j < s; ++j) total += scores[j] = std::exp(scores[j] - max);
        for (size_t j = 0; j < s; ++j)
          for (size_t e = 0; e < d; ++e)
            out[i * h + head * d + e] += scores[j] / total * v[j * h + head * d + e];
      }
    return out;
  }
};

Matrix add(Matrix a, const Matrix& b) {
  for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

}  // namespace

std::vector<double> bert_reference(const WeightSource& weights, const std::string& prefix,
                                   const BertConfig& config, const std::vector<int32_t>& ids,
                                   const ReferenceNorm& norm,
                                   const std::vector<int32_t>& token_types) {
  Ref ref{weights, prefix, config, norm, ids.size()};
  const size_t h = static_cast<size_t>(config.hidden_size);
  const size_t inner = static_cast<size_t>(config.intermediate_size);
  Matrix words = ref.get("embeddings.word_embeddings.weight");
  Matrix positions = ref.get("embeddings.position_embeddings.weight");
  Matrix types = ref.get("embeddings.token_type_embeddings.weight");
  Matrix x(ids.size() * h);
  for (size_t r = 0; r < ids.size(); ++r)
    for (size_t i = 0; i < h; ++i)
      x[r * h + i] = words[size_t(ids[r]) * h + i] +
                     types[(token_types.empty() ? 0 : size_t(token_types[r])) * h + i] +
                     positions[r * h + i];
  x = ref.normalize("embeddings.LayerNorm", x);
  for (int64_t layer = 0; layer < config.num_hidden_layers; ++layer) {
    const std::string at = "encoder.layer." + std::to_string(layer) + ".";
    Matrix context = ref.attention(ref.linear(at + "attention.self.query", x, h, h),
                                   ref.linear(at + "attention.self.key", x, h, h),
                                   ref.linear(at + "attention.self.value", x, h, h));
    Matrix a = ref.normalize(at + "attention.output.LayerNorm",
                             add(ref.linear(at + "attention.output.dense", context, h, h), x));
    Matrix up = ref.linear(at + "intermediate.dense", a, h, inner);
    for (double& v : up) v = ref.act(v);
    x = ref.normalize(at + "output.LayerNorm",
                      add(ref.linear(at + "output.dense", up, inner, h), a));
  }
  return x;
}

}  // namespace normrt::test
