// AdditiveAttention as a one-node graph against a double-precision
// evaluation of its equations (runtime/ops/op_additive_attention.cc), over
// odd widths and key counts on both sides of the op's key block (32), keys
// of symbolic and fixed length, with and without c and the alignment
// output; its non-finite rule; and its shape errors.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "runtime/validate/graph_validate.h"

namespace normrt::test {
namespace {

std::vector<float> uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  size_t q, a, length, channels;
  bool symbolic_keys, with_c, with_alignment;
  float score_scale;  // spread of v: scores up to about ±score_scale·a
};

struct Result {
  std::vector<float> context, alignment;
};

// context [q, C] and alignment [q, L] in double.
void reference(const Case& k, const std::vector<float>& query, const std::vector<float>& keys,
               const std::vector<float>& v, float c, const std::vector<float>& values,
               std::vector<double>& context, std::vector<double>& alignment) {
  context.assign(k.q * k.channels, 0.0);
  alignment.assign(k.q * k.length, 0.0);
  for (size_t r = 0; r < k.q; ++r) {
    std::vector<double> e(k.length);
    double top = -INFINITY;
    for (size_t j = 0; j < k.length; ++j) {
      e[j] = k.with_c ? c : 0.0;
      for (size_t i = 0; i < k.a; ++i)
        e[j] += double(v[i]) * std::tanh(double(query[r * k.a + i]) + keys[j * k.a + i]);
      top = std::max(top, e[j]);
    }
    double total = 0;
    for (double& x : e) total += x = std::exp(x - top);
    for (size_t j = 0; j < k.length; ++j) {
      alignment[r * k.length + j] = e[j] / total;
      for (size_t i = 0; i < k.channels; ++i)
        context[r * k.channels + i] += e[j] / total * values[j * k.channels + i];
    }
  }
}

Graph attention_graph(const Case& k, const std::vector<float>& keys, const std::vector<float>& v,
                      float c) {
  GraphBuilder b;
  const int64_t q = k.q, a = k.a, ch = k.channels;
  const int64_t l = k.symbolic_keys ? kSequenceDim : int64_t(k.length);
  TensorId query = b.input("query", DataType::kF32, {q, a});
  TensorId key_tensor =
      k.symbolic_keys ? b.input("keys", DataType::kF32, {l, a}) : b.weight("keys", {l, a}, keys);
  TensorId values = b.input("values", DataType::kF32, {l, ch});
  TensorId v_tensor = b.weight("v", {a}, v);
  TensorId c_tensor = k.with_c ? b.weight("c", {1}, {c}) : kNoTensor;
  std::vector<Shape> outs = {{q, ch}};
  if (k.with_alignment) outs.push_back({q, l});
  b.node(OpType::kAdditiveAttention, "attn", {query, key_tensor, v_tensor, c_tensor, values}, outs);
  for (TensorId t : b.last_outputs()) b.output(t);
  return b.finish(k.symbolic_keys ? int64_t(k.length) + 3 : 1);
}

Result run_attention(const Case& k, const std::vector<float>& query, const std::vector<float>& keys,
                     const std::vector<float>& v, float c, const std::vector<float>& values) {
  auto model = compile_model(attention_graph(k, keys, v, c), ModelOptions{});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE(session.is_ok());
  Session& s = *session.value();
  REQUIRE(s.set_input("query", query.data(), query.size() * 4).is_ok());
  if (k.symbolic_keys) REQUIRE(s.set_input("keys", keys.data(), keys.size() * 4).is_ok());
  REQUIRE(s.set_input("values", values.data(), values.size() * 4).is_ok());
  Status run = s.run();
  REQUIRE_MESSAGE(run.is_ok(), run.message());
  Result r;
  auto context = s.output("attn:0");
  REQUIRE(context.is_ok());
  r.context.assign(context.value().f32(), context.value().f32() + context.value().elements());
  if (k.with_alignment) {
    auto alignment = s.output("attn:1");
    REQUIRE(alignment.is_ok());
    r.alignment.assign(alignment.value().f32(),
                       alignment.value().f32() + alignment.value().elements());
  }
  return r;
}

TEST_CASE("AdditiveAttention matches its equations in double for odd sizes") {
  const std::vector<Case> cases = {
      {1, 1, 1, 1, true, true, true, 1.0f},     {1, 7, 3, 5, true, true, true, 2.0f},
      {2, 48, 33, 48, true, false, true, 1.0f}, {1, 13, 65, 3, false, true, false, 3.0f},
      {3, 5, 31, 9, false, false, true, 8.0f},  {1, 48, 32, 48, true, true, true, 0.5f}};
  double worst_ratio = 0;
  uint32_t seed = 1;
  for (const Case& k : cases) {
    CAPTURE(k.q);
    CAPTURE(k.a);
    CAPTURE(k.length);
    CAPTURE(k.channels);
    const std::vector<float> query = uniform(k.q * k.a, -2, 2, seed++);
    const std::vector<float> keys = uniform(k.length * k.a, -2, 2, seed++);
    const std::vector<float> v = uniform(k.a, -k.score_scale, k.score_scale, seed++);
    const std::vector<float> values = uniform(k.length * k.channels, -3, 3, seed++);
    const float c = 1000.0f;  // cancels in the softmax; a large shift tests the stability
    const Result got = run_attention(k, query, keys, v, c, values);
    std::vector<double> context, alignment;
    reference(k, query, keys, v, c, values, context, alignment);

    // tanh within 1e-6 relative, and q + k rounded to float (≤ 2^-24 relative,
    // tanh' ≤ 1): each score is off by at most δe; α then by ≤ 2δe relative.
    double delta_e = 0, max_value = 0;
    for (size_t i = 0; i < k.a; ++i) delta_e += std::fabs(v[i]) * (1e-6 + 6e-8 * 4.0);
    for (float x : values) max_value = std::max(max_value, double(std::fabs(x)));
    const double align_tol = 2.5 * delta_e + 1e-7;
    const double context_tol = (2.5 * delta_e + 1e-7) * max_value;
    for (size_t i = 0; i < context.size(); ++i) {
      const double diff = std::fabs(got.context[i] - context[i]);
      worst_ratio = std::max(worst_ratio, diff / context_tol);
      CHECK_MESSAGE(diff <= context_tol, "context[" << i << "]: got " << got.context[i]
                                                    << ", expected " << context[i] << ", tolerance "
                                                    << context_tol);
    }
    for (size_t i = 0; i < got.alignment.size(); ++i) {
      const double diff = std::fabs(got.alignment[i] - alignment[i]);
      CHECK_MESSAGE(
          diff <= align_tol * alignment[i] + 1e-7,
          "alignment[" << i << "]: got " << got.alignment[i] << ", expected " << alignment[i]);
    }
  }
  MESSAGE("AdditiveAttention: worst |error| / tolerance " << worst_ratio);
}

TEST_CASE("AdditiveAttention gives NaN rows for a non-finite score") {
  const Case k{2, 3, 4, 2, true, true, true, 1.0f};
  std::vector<float> query = uniform(6, -1, 1, 7);
  query[4] = NAN;  // row 1 only
  const Result got = run_attention(k, query, uniform(12, -1, 1, 8), uniform(3, -1, 1, 9), 0.0f,
                                   uniform(8, -1, 1, 10));
  for (size_t j = 0; j < 4; ++j) {
    CHECK(std::isfinite(got.alignment[j]));
    CHECK(std::isnan(got.alignment[4 + j]));
  }
  CHECK(std::isnan(got.context[2]));
  CHECK(std::isfinite(got.context[0]));
}

// Validates a graph with one AdditiveAttention node whose operand `which` is
// replaced by a tensor of `shape` (and dtype), expecting every fragment.
void expect_invalid(size_t which, const Shape& shape, DataType dtype,
                    const std::vector<std::string>& fragments) {
  Graph g = attention_graph({1, 4, 5, 3, true, true, true, 1.0f}, {}, {1, 2, 3, 4}, 0.5f);
  Tensor bad;
  bad.name = "bad";
  bad.shape = shape;
  bad.dtype = dtype;
  bad.kind = TensorKind::kInput;
  g.nodes[0].inputs[which] = g.add_tensor(bad);
  g.inputs.push_back(g.nodes[0].inputs[which]);
  const Status s = graph_validate(g);
  REQUIRE_FALSE(s.is_ok());
  for (const std::string& f : fragments)
    CHECK_MESSAGE(s.message().find(f) != std::string::npos, "'" << f << "' in: " << s.message());
}

TEST_CASE("AdditiveAttention names the operand, the expected and the found shape") {
  expect_invalid(0, {1, 5}, DataType::kF32,
                 {"node 'attn' (AdditiveAttention)", "query 'bad'", "A = 5", "A = 4"});
  expect_invalid(2, {3}, DataType::kF32, {"v (A from keys) 'bad'", "[4]", "found [3]"});
  expect_invalid(3, {2}, DataType::kF32, {"c 'bad'", "[1]", "found [2]"});
  expect_invalid(4, {6, 3}, DataType::kF32, {"values 'bad'", "[6] rows", "[S]"});
  expect_invalid(4, {kSequenceDim, 3}, DataType::kI32, {"values 'bad' must be f32", "found i32"});
  expect_invalid(1, {kSequenceDim, 4, 1}, DataType::kF32, {"keys 'bad' must have rank 2"});

  Graph g = attention_graph({1, 4, 5, 3, true, true, true, 1.0f}, {}, {1, 2, 3, 4}, 0.5f);
  g.nodes[0].attributes.push_back({"scale", 1.0});
  Status s = graph_validate(g);
  CHECK(s.message().find("unknown attribute 'scale'") != std::string::npos);
  g.nodes[0].attributes.clear();
  g.nodes[0].inputs.pop_back();  // no values
  s = graph_validate(g);
  CHECK_FALSE(s.is_ok());
}

}  // namespace
}  // namespace normrt::test
