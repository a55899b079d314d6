// GruRecurrenceCho as a one-node graph against a double-precision evaluation of
// its equations (runtime/ops/op_gru_recurrence.cc) for every norm, odd
// widths, with and without h0 and the biases inside the norms, f32 and bf16
// matrices; reverse = 1 against the forward op on reversed rows; its errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "base/bf16.h"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/validate/graph_validate.h"

namespace normrt::test {
namespace {

std::vector<float> uniform(size_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Params {
  size_t h = 0, rows = 0;
  std::string norm = "none";  // none | layer_norm | rms_norm | prms_norm
  double p = 0.0;
  bool h0 = false, biases = false, bf16 = false, reverse = false;
  // Values: inputs, then the weights in the op's operand order.
  std::vector<float> xg, xc, h0_values, w_g, w_c, bias_g, gain_g, norm_bias_g, bias_c, gain_c,
      norm_bias_c;
};

Params make_params(size_t h, size_t rows, const std::string& norm, bool h0, bool biases,
                   uint32_t seed) {
  std::mt19937 rng(seed);
  Params p;
  p.h = h;
  p.rows = rows;
  p.norm = norm;
  p.p = norm == "prms_norm" ? 0.4 : 0.0;
  p.h0 = h0;
  p.biases = biases;
  p.xg = uniform(rows * 2 * h, -1.5f, 1.5f, rng);
  p.xc = uniform(rows * h, -1.5f, 1.5f, rng);
  p.h0_values = uniform(h, -0.9f, 0.9f, rng);
  const float scale = 1.5f / std::sqrt(float(h));
  p.w_g = uniform(2 * h * h, -scale, scale, rng);
  p.w_c = uniform(h * h, -scale, scale, rng);
  if (biases) {
    p.bias_g = uniform(2 * h, -0.5f, 0.5f, rng);
    p.bias_c = uniform(h, -0.5f, 0.5f, rng);
  }
  if (norm != "none") {
    p.gain_g = uniform(2 * h, 0.7f, 1.3f, rng);
    p.norm_bias_g = uniform(2 * h, -0.3f, 0.3f, rng);
    p.gain_c = uniform(h, 0.7f, 1.3f, rng);
    p.norm_bias_c = uniform(h, -0.3f, 0.3f, rng);
  }
  return p;
}

// The op's N in double: norm(v)·gain + bias over the row, or v for "none".
void normalize(const Params& p, std::vector<double>& v, const std::vector<float>& gain,
               const std::vector<float>& bias) {
  if (p.norm == "none") return;
  const size_t n = v.size();
  double mean = 0, stat = 0;
  if (p.norm == "layer_norm") {
    for (double x : v) mean += x / n;
    for (double x : v) stat += (x - mean) * (x - mean) / n;
  } else {
    const size_t k = p.norm == "prms_norm" ? size_t(std::floor(double(n) * p.p)) : n;
    for (size_t i = 0; i < k; ++i) stat += v[i] * v[i] / k;
  }
  const double d = std::sqrt(stat + 1e-5);
  for (size_t i = 0; i < n; ++i) v[i] = (v[i] - mean) / d * gain[i] + bias[i];
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Weights as the kernel sees them: bf16-rounded when stored as bf16.
std::vector<float> stored(const Params& p, const std::vector<float>& w) {
  if (!p.bf16) return w;
  std::vector<float> r(w.size());
  for (size_t i = 0; i < w.size(); ++i) r[i] = float_from_bf16(bf16_from_float(w[i]));
  return r;
}

// h_seq [rows, H] in double.
std::vector<double> reference(const Params& p) {
  const size_t h = p.h;
  const std::vector<float> w_g = stored(p, p.w_g), w_c = stored(p, p.w_c);
  std::vector<double> prev(h, 0.0), out(p.rows * h);
  if (p.h0) prev.assign(p.h0_values.begin(), p.h0_values.end());
  for (size_t i = 0; i < p.rows; ++i) {
    const size_t t = p.reverse ? p.rows - 1 - i : i;
    std::vector<double> g(2 * h), c(h);
    for (size_t o = 0; o < 2 * h; ++o) {
      g[o] = p.biases ? p.bias_g[o] : 0.0;
      for (size_t k = 0; k < h; ++k) g[o] += double(w_g[o * h + k]) * prev[k];
    }
    for (size_t o = 0; o < h; ++o) {
      c[o] = p.biases ? p.bias_c[o] : 0.0;
      for (size_t k = 0; k < h; ++k) c[o] += double(w_c[o * h + k]) * prev[k];
    }
    normalize(p, g, p.gain_g, p.norm_bias_g);
    normalize(p, c, p.gain_c, p.norm_bias_c);
    for (size_t j = 0; j < h; ++j) {
      const double r = sigmoid(g[j] + p.xg[t * 2 * h + j]);
      const double u = sigmoid(g[h + j] + p.xg[t * 2 * h + h + j]);
      const double candidate = std::tanh(r * c[j] + p.xc[t * h + j]);
      out[t * h + j] = u * prev[j] + (1.0 - u) * candidate;
    }
    std::copy(out.begin() + t * h, out.begin() + (t + 1) * h, prev.begin());
  }
  return out;
}

Graph recurrence_graph(const Params& p) {
  GraphBuilder b;
  const int64_t h = p.h;
  auto matrix = [&](const std::string& name, Shape shape, const std::vector<float>& v) {
    return p.bf16 ? b.weight_bf16(name, shape, v) : b.weight(name, shape, v);
  };
  auto vec = [&](const std::string& name, const std::vector<float>& v) {
    return v.empty() ? kNoTensor : b.weight(name, {int64_t(v.size())}, v);
  };
  TensorId xg = b.input("xg", DataType::kF32, {kSequenceDim, 2 * h});
  TensorId xc = b.input("xc", DataType::kF32, {kSequenceDim, h});
  TensorId h0 = p.h0 ? b.input("h0", DataType::kF32, {1, h}) : kNoTensor;
  std::vector<TensorId> inputs = {xg,
                                  xc,
                                  h0,
                                  matrix("w_g", {2 * h, h}, p.w_g),
                                  matrix("w_c", {h, h}, p.w_c),
                                  vec("bias_g", p.bias_g),
                                  vec("gain_g", p.gain_g),
                                  vec("norm_bias_g", p.norm_bias_g),
                                  vec("bias_c", p.bias_c),
                                  vec("gain_c", p.gain_c),
                                  vec("norm_bias_c", p.norm_bias_c)};
  std::vector<Attribute> attributes = {{"norm", p.norm}};
  if (p.norm == "prms_norm") attributes.push_back({"p", p.p});
  if (p.reverse) attributes.push_back({"reverse", int64_t{1}});
  b.node(OpType::kGruRecurrenceCho, "gru", inputs, {{kSequenceDim, h}, {1, h}}, attributes);
  for (TensorId t : b.last_outputs()) b.output(t);
  return b.finish(int64_t(p.rows));
}

struct Output {
  std::vector<float> h_seq, h_last;
};

Output run_recurrence(const Params& p) {
  auto model = compile_model(recurrence_graph(p), ModelOptions{});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  Session& s = *session.value();
  REQUIRE(s.set_input("xg", p.xg.data(), p.xg.size() * 4).is_ok());
  REQUIRE(s.set_input("xc", p.xc.data(), p.xc.size() * 4).is_ok());
  if (p.h0) REQUIRE(s.set_input("h0", p.h0_values.data(), p.h0_values.size() * 4).is_ok());
  Status run = s.run();
  REQUIRE_MESSAGE(run.is_ok(), run.message());
  Output out;
  for (auto [name, dst] :
       {std::pair<const char*, std::vector<float>*>{"gru:0", &out.h_seq}, {"gru:1", &out.h_last}}) {
    auto ref = s.output(name);
    REQUIRE(ref.is_ok());
    dst->assign(ref.value().f32(), ref.value().f32() + ref.value().elements());
  }
  return out;
}

TEST_CASE("GruRecurrenceCho matches its equations in double for every norm") {
  double worst = 0;
  uint32_t seed = 11;
  for (const char* norm : {"none", "layer_norm", "rms_norm", "prms_norm"})
    for (size_t h : {3, 17, 40})
      for (size_t rows : {1, 6})
        for (int variant = 0; variant < 3; ++variant) {
          Params p = make_params(h, rows, norm, variant != 0, variant == 2, seed++);
          p.bf16 = variant == 1;
          CAPTURE(norm);
          CAPTURE(h);
          CAPTURE(rows);
          CAPTURE(variant);
          const Output got = run_recurrence(p);
          const std::vector<double> want = reference(p);
          // |h| < 1; errors from float GEMVs, norms and activations (each
          // ~1e-6 relative) grow mildly through the rows.
          const double tol = 5e-6;
          for (size_t i = 0; i < want.size(); ++i) {
            const double diff = std::fabs(got.h_seq[i] - want[i]);
            worst = std::max(worst, diff);
            CHECK_MESSAGE(diff <= tol, "h_seq[" << i << "] (row " << i / h << "): got "
                                                << got.h_seq[i] << ", expected " << want[i]
                                                << ", tolerance " << tol);
          }
          CHECK(std::equal(got.h_last.begin(), got.h_last.end(),
                           got.h_seq.end() - std::ptrdiff_t(h)));
        }
  MESSAGE("GruRecurrenceCho: worst |error| " << worst);
}

TEST_CASE("GruRecurrenceCho reverse = 1 is the forward recurrence over reversed rows") {
  for (const char* norm : {"none", "prms_norm"}) {
    Params backward = make_params(9, 7, norm, true, true, 99);
    backward.reverse = true;
    Params forward = backward;
    forward.reverse = false;
    const size_t h = 9, rows = 7;
    for (size_t t = 0; t < rows; ++t) {  // row t of forward = row rows−1−t of backward
      std::copy_n(backward.xg.begin() + (rows - 1 - t) * 2 * h, 2 * h,
                  forward.xg.begin() + t * 2 * h);
      std::copy_n(backward.xc.begin() + (rows - 1 - t) * h, h, forward.xc.begin() + t * h);
    }
    const Output b = run_recurrence(backward), f = run_recurrence(forward);
    for (size_t t = 0; t < rows; ++t)
      for (size_t j = 0; j < h; ++j)
        CHECK_MESSAGE(b.h_seq[t * h + j] == f.h_seq[(rows - 1 - t) * h + j],
                      norm << " row " << t << " column " << j);
    CHECK(std::equal(b.h_last.begin(), b.h_last.end(), b.h_seq.begin()));  // state after row 0
    const std::vector<double> want = reference(backward);
    for (size_t i = 0; i < want.size(); ++i) CHECK(std::fabs(b.h_seq[i] - want[i]) <= 2e-5);
  }
}

void expect_invalid(Graph g, const std::vector<std::string>& fragments) {
  const Status s = graph_validate(g);
  REQUIRE_FALSE(s.is_ok());
  for (const std::string& f : fragments)
    CHECK_MESSAGE(s.message().find(f) != std::string::npos, "'" << f << "' in: " << s.message());
}

TEST_CASE("GruRecurrenceCho errors name the operand or attribute, expected and found") {
  const Params p = make_params(4, 2, "layer_norm", true, true, 5);
  Graph g = recurrence_graph(p);
  Node& node = g.nodes[0];

  Graph bad_gate = g;
  bad_gate.tensors[bad_gate.nodes[0].inputs[3]].shape = {4, 4};
  bad_gate.tensors[bad_gate.nodes[0].inputs[3]].data.size = 64;
  expect_invalid(bad_gate, {"node 'gru' (GruRecurrenceCho)", "w_g (2H · H, H from w_c) 'w_g'",
                            "[8, 4]", "found [4, 4]"});

  Graph bad_xc = g;
  bad_xc.tensors[bad_xc.nodes[0].inputs[1]].shape = {kSequenceDim, 5};
  expect_invalid(bad_xc, {"xc (R · H, R from xg) 'xc'", "[S, 4]", "found [S, 5]"});

  Graph no_norm = g;
  no_norm.nodes[0].attributes = {{"norm", std::string("none")}};
  expect_invalid(no_norm, {"gain_g needs a norm", "\"none\""});

  Graph tiny_p = g;
  tiny_p.nodes[0].attributes = {{"norm", std::string("prms_norm")}, {"p", 0.1}};
  expect_invalid(tiny_p, {"rows of 8"});

  Graph bad_reverse = g;
  bad_reverse.nodes[0].attributes.push_back({"reverse", int64_t{2}});
  expect_invalid(bad_reverse, {"attribute 'reverse' must be in [0, 1], found 2"});

  Graph typo = g;
  typo.nodes[0].attributes.push_back({"revers", int64_t{1}});
  expect_invalid(typo, {"unknown attribute 'revers'"});

  Graph bad_bias = g;
  bad_bias.tensors[bad_bias.nodes[0].inputs[5]].shape = {4};
  bad_bias.tensors[bad_bias.nodes[0].inputs[5]].data.size = 16;
  expect_invalid(bad_bias, {"bias_g 'bias_g' must have shape [8], found [4]"});
  CHECK(node.op == OpType::kGruRecurrenceCho);
}

}  // namespace
}  // namespace normrt::test
