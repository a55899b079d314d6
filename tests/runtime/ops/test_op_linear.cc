// Linear and FusedLinear ops against double dot products (and the double norm
// and activation references), f32 and bf16 weights (compared with the
// bf16-rounded weights), odd K and N, S > 1, on every ISA. Tolerances come
// from linear.h's contract, 1e-5 · (|b| + Σ|w·x|), carried through the norm
// (see fused_tolerance()).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"
#include "tests/kernels/fused_test_support.h"
#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

struct LinearCase {
  bool fused = false;  // FusedLinear instead of Linear
  size_t k = 8, n = 5, sequence = 3;
  bool rank3 = false;  // x [2, S, K] instead of [S, K]
  bool bias = true, bf16 = false;
  // FusedLinear only:
  const char* norm = "none";
  bool residual = false, sum = false, gain = false, norm_bias = false;
  Activation activation = Activation::kNone;
  double p = 0.5;
};

NormParams params_of(const LinearCase& c) {
  NormParams params;
  const std::string norm = c.norm;
  params.kind = norm == "layer_norm" ? NormKind::kLayerNorm
                : norm == "rms_norm" ? NormKind::kRmsNorm
                                     : NormKind::kPRmsNorm;
  params.p = c.p;
  return params;
}

void check_linear_case(const LinearCase& c, Isa isa, ThreadPool* pool = nullptr) {
  INFO((c.fused ? "FusedLinear" : "Linear")
       << " K " << c.k << " N " << c.n << " S " << c.sequence << " rank3 " << c.rank3 << " bias "
       << c.bias << " bf16 " << c.bf16 << " norm " << std::string(c.norm) << " residual "
       << c.residual << " sum " << c.sum << " gain " << c.gain << " norm_bias " << c.norm_bias
       << " activation " << std::string(activation_name(c.activation)) << " isa "
       << std::string(isa_name(isa)));
  OpHarness h;
  const auto k = static_cast<int64_t>(c.k), n = static_cast<int64_t>(c.n);
  const Shape x_shape = c.rank3 ? Shape{2, kSequenceDim, k} : Shape{kSequenceDim, k};
  const Shape y_shape = c.rank3 ? Shape{2, kSequenceDim, n} : Shape{kSequenceDim, n};
  const size_t rows = c.sequence * (c.rank3 ? 2 : 1);

  std::vector<float> w = random_floats(c.n * c.k, -1, 1, 21);
  if (c.bf16) w = from_bf16(to_bf16(w));  // the reference uses the rounded weights
  std::vector<float> bias = c.bias ? random_floats(c.n, -1, 1, 22) : std::vector<float>{};
  std::vector<float> gain = c.gain ? random_floats(c.n, 0.5f, 1.5f, 23) : std::vector<float>{};
  std::vector<float> norm_bias =
      c.norm_bias ? random_floats(c.n, -0.5f, 0.5f, 24) : std::vector<float>{};

  TensorId x = h.input("x", x_shape);
  TensorId wt = c.bf16 ? h.weight_bf16("W", {n, k}, to_bf16(w)) : h.weight("W", {n, k}, w);
  TensorId bt = c.bias ? h.weight("b", {n}, bias) : kNoTensor;
  TensorId rt = c.residual ? h.input("r", y_shape) : kNoTensor;
  TensorId gt = c.gain ? h.weight("g", {n}, gain) : kNoTensor;
  TensorId nbt = c.norm_bias ? h.weight("beta", {n}, norm_bias) : kNoTensor;
  TensorId y = h.intermediate("y", y_shape);
  TensorId sum = c.sum ? h.intermediate("sum", y_shape) : kNoTensor;
  std::vector<TensorId> inputs = {x, wt, bt};
  std::vector<Attribute> attributes;
  if (c.fused) {
    inputs.insert(inputs.end(), {rt, gt, nbt});
    attributes = activation_attributes(c.activation);
    attributes.push_back({"norm", std::string(c.norm)});
    if (std::string(c.norm) == "prms_norm") attributes.push_back({"p", c.p});
  }
  while (inputs.back() == kNoTensor) inputs.pop_back();
  std::vector<TensorId> outputs = {y};
  if (c.sum) outputs.push_back(sum);
  h.node(c.fused ? OpType::kFusedLinear : OpType::kLinear, "fc", inputs, outputs, attributes);
  Status valid = h.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = h.create(isa);
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());

  const std::vector<float> xs = random_floats(rows * c.k, -1, 1, 25);
  const std::vector<float> rs = random_floats(rows * c.n, -1, 1, 26);
  h.set(x, xs);
  if (c.residual) h.set(rt, rs);
  Status ran = h.run(**kernel, c.sequence, 0, OpHarness::kLast, pool);
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  const std::vector<float> ys = h.get(y);
  const std::vector<float> sums = c.sum ? h.get(sum) : std::vector<float>{};

  const bool normalize = std::string(c.norm) != "none";
  const NormParams params = params_of(c);
  size_t failures = 0;
  for (size_t row = 0; row < rows; ++row) {
    // t = x·Wᵀ + b + r in double; linear.h bounds the float error of each t_j
    // by 1e-5 · (|b| + Σ|w·x|) (+ the rounding of adding r).
    std::vector<double> t(c.n), error(c.n);
    for (size_t j = 0; j < c.n; ++j) {
      double dot = 0, magnitude = 0;
      for (size_t i = 0; i < c.k; ++i) {
        dot += double(xs[row * c.k + i]) * w[j * c.k + i];
        magnitude += std::fabs(double(xs[row * c.k + i]) * w[j * c.k + i]);
      }
      const double b = c.bias ? bias[j] : 0.0, r = c.residual ? rs[row * c.n + j] : 0.0;
      t[j] = dot + b + r;
      error[j] = 1e-5 * (magnitude + std::fabs(b)) + 0x1p-23 * (std::fabs(t[j]) + std::fabs(r));
    }
    const double max_error = *std::max_element(error.begin(), error.end());
    NormReference ref;
    if (normalize) ref = reference_norm(params, t, gain, norm_bias);
    for (size_t j = 0; j < c.n; ++j) {
      const size_t at = row * c.n + j;
      if (c.sum && !(std::fabs(sums[at] - t[j]) <= error[j]) && failures++ < 5) {
        FAIL_CHECK("sum " << mismatch(at, sums[at], t[j], error[j]));
      }
      double pre = t[j], tolerance = error[j];
      if (normalize) {
        // An error δ ≤ max_error in every t_j moves x̂_j by at most
        // δ/d · (2 + |x̂_j|) (its own term, the mean, the scale); the norm
        // kernel adds its own contract; a factor 2 covers second-order terms.
        const double g = std::fabs(effective_gain(params, gain, j));
        pre = ref.y[j];
        tolerance = 2 * (g / ref.denominator * max_error * (2 + std::fabs(ref.x_hat[j])) +
                         norm_tolerance(params, ref, gain, norm_bias, j));
      }
      // activation.h: 1e-6 relative (2^-12 for gelu_erf_bf16); its slope is at most 1.13 (gelu), so
      // input errors grow ≤ 1.2×.
      const double expected = reference_activation(c.activation, pre);
      tolerance =
          1.2 * tolerance + activation_tolerance(c.activation) * std::fabs(expected) + 1e-30;
      if (!(std::fabs(ys[at] - expected) <= tolerance) && failures++ < 5) {
        FAIL_CHECK("y " << mismatch(at, ys[at], expected, tolerance));
      }
    }
  }
  CHECK(failures == 0);
}

}  // namespace

TEST_SUITE("linear_ops") {
  TEST_CASE("Linear matches double dot products: odd K and N, S > 1, f32 and bf16, every ISA") {
    for (Isa isa : runnable_isas()) {
      for (auto [k, n] : {std::pair{1, 1}, {3, 17}, {17, 3}, {257, 33}, {1000, 5}, {64, 257}}) {
        for (bool bf16 : {false, true}) {
          LinearCase c;
          c.k = k;
          c.n = n;
          c.bf16 = bf16;
          c.bias = (k + n) % 2 == 0;
          check_linear_case(c, isa);
        }
      }
    }
  }

  TEST_CASE("Linear over rank-3 activations and S = 1, with and without a bias") {
    for (bool bias : {false, true}) {
      LinearCase c;
      c.k = 19;
      c.n = 23;
      c.bias = bias;
      c.rank3 = true;
      check_linear_case(c, runnable_isas().back());
      c.rank3 = false;
      c.sequence = 1;
      check_linear_case(c, runnable_isas().back());
    }
  }

  TEST_CASE("FusedLinear: every norm with every optional operand, against the unfused equations") {
    for (Isa isa : runnable_isas()) {
      for (const char* norm : {"none", "layer_norm", "rms_norm", "prms_norm"}) {
        for (int mask = 0; mask < 8; ++mask) {
          LinearCase c;
          c.fused = true;
          c.k = 37;
          c.n = 45;
          c.norm = norm;
          c.bias = mask & 1;
          c.residual = mask & 2;
          c.sum = c.residual && (mask & 4);
          const bool normalize = std::string(norm) != "none";
          c.gain = normalize && (mask & 4);
          c.norm_bias = normalize && (mask & 1);
          c.bf16 = mask & 2;
          check_linear_case(c, isa);
        }
      }
    }
  }

  TEST_CASE("FusedLinear: each activation after a norm, odd N, S = 1 and S > 1, a thread pool") {
    ThreadPool pool(2);
    for (Activation activation : kAllActivations) {
      for (size_t n : {1, 17, 257}) {
        LinearCase c;
        c.fused = true;
        c.k = 29;
        c.n = n;
        c.sequence = n == 17 ? 1 : 4;
        c.norm = n == 1 ? "rms_norm" : "prms_norm";
        c.p = 0.25;
        c.gain = c.norm_bias = c.residual = c.sum = true;
        c.activation = activation;
        check_linear_case(c, runnable_isas().back(), &pool);
      }
    }
  }

  TEST_CASE("Linear and FusedLinear on a thread pool at S = 1: columns split across threads") {
    // One row splits its columns from kFusedLinearMinParallelBytes of weights
    // (fused_linear.h); set here whatever NORMRT_GEMV_THREADS says.
    const ParallelThresholdScope split_one_row(kFusedLinearMinParallelBytes,
                                               kFusedLinearMinParallelWork);
    ThreadPool pool(2);
    for (const char* norm : {"none", "layer_norm"}) {
      for (size_t sequence : {1, 3}) {
        LinearCase c;
        c.fused = std::string(norm) != "none";
        c.k = 513;
        c.n = 640;  // 1.3 MB of f32 weights
        c.sequence = sequence;
        c.norm = norm;
        c.residual = c.gain = c.fused;
        check_linear_case(c, runnable_isas().back(), &pool);
      }
    }
  }

  TEST_CASE("Linear and FusedLinear reject bad operands with named messages") {
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, 8});
    TensorId x7 = h.input("x7", {kSequenceDim, 7});
    TensorId w = h.weight("W", {4, 8}, std::vector<float>(32, 0.5f));
    TensorId w_in = h.input("W_in", {4, 8});
    TensorId w3 = h.weight("W3", {2, 2, 8}, std::vector<float>(32, 0.5f));
    TensorId b5 = h.weight("b5", {5}, std::vector<float>(5, 0.0f));
    TensorId r = h.input("r", {kSequenceDim, 5});
    TensorId g = h.weight("g", {4}, std::vector<float>(4, 1.0f));
    TensorId y = h.intermediate("y", {kSequenceDim, 4});
    TensorId sum = h.intermediate("sum", {kSequenceDim, 4});
    h.node(OpType::kLinear, "fc", {x7, w}, {y});
    auto error = [&](std::vector<TensorId> inputs, std::vector<Attribute> attributes = {},
                     OpType op = OpType::kLinear, std::vector<TensorId> outputs = {}) {
      Node& node = h.graph.nodes.back();
      node.op = op;
      node.inputs = std::move(inputs);
      node.outputs = outputs.empty() ? std::vector<TensorId>{y} : std::move(outputs);
      node.attributes = std::move(attributes);
      Status s = h.infer();
      CHECK(s.is_ok() == h.create().is_ok());
      return s.message();
    };
    CHECK(contains(error({x7, w}),
                   "node 'fc' (Linear): operand 0 (x) 'x7' has K = 7 features, but W is [4, 8]"));
    CHECK(contains(error({x, w_in}), "operand 1 (W) 'W_in' must be a weight tensor, found input"));
    CHECK(contains(error({x, w3}), "operand 1 (W) 'W3' must have shape [N, K]"));
    CHECK(contains(error({x, w, b5}), "operand 2 (bias) 'b5' must have shape [4], found [5]"));
    CHECK(contains(error({x, kNoTensor}), "operand 1 (W) is required"));
    CHECK(contains(error({x, w}, {{"activation", std::string("relu")}}),
                   "unknown attribute 'activation' (Linear takes no attributes)"));
    const OpType fused = OpType::kFusedLinear;
    CHECK(contains(error({x, w, kNoTensor, r}, {}, fused),
                   "operand 3 (residual) 'r' must have shape [S, 4], found [S, 5]"));
    CHECK(contains(error({x, w, kNoTensor, kNoTensor, g}, {}, fused),
                   "operands 4 (gain) and 5 (norm_bias) need a norm"));
    CHECK(
        contains(error({x, w}, {}, fused, {y, sum}), "output 1 (sum) needs operand 3 (residual)"));
    CHECK(contains(error({x, w}, {{"norm", std::string("batch_norm")}}, fused),
                   "attribute 'norm' must be \"none\", \"layer_norm\", \"rms_norm\" or "
                   "\"prms_norm\", found \"batch_norm\""));
    CHECK(contains(error({x, w}, {{"activation", std::string("swish")}}, fused),
                   "unknown activation 'swish'"));
    CHECK(contains(error({x, w}, {{"norm", std::string("layer_norm")}, {"p", 0.5}}, fused),
                   "attribute 'p' applies only to pRMSNorm"));
    CHECK(contains(error({x, w}, {{"norm", std::string("prms_norm")}, {"p", 0.1}}, fused),
                   "floor(0.1*4) = 0"));
    CHECK(contains(
        error({x, w},
              {{"norm", std::string("rms_norm")}, {"gain_convention", std::string("one_plus")}},
              fused),
        "needs a gain"));
    CHECK(contains(error({x, w}, {{"eps", 1e-6}, {"actvation", std::string("relu")}}, fused),
                   "unknown attribute 'actvation' (FusedLinear takes eps, eps_placement, "
                   "gain_convention, norm, p, activation, negative_slope)"));
  }
}

}  // namespace normrt::testing
