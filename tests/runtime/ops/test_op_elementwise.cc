// Element-wise and row ops: Add, Mul (exact: float a ∘ b is the reference),
// Activation (activation.h's contract vs double), Softmax, MeanPool (mean and
// max) and L2Normalize (tolerances derived from their roundings), in place
// where allowed.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One node (x) → y of shape `shape` with S = `sequence`, run on `xs`.
std::vector<float> run_unary(OpType op, const Shape& shape, const Shape& y_shape, size_t sequence,
                             const std::vector<float>& xs, std::vector<Attribute> attributes = {},
                             bool in_place = false) {
  OpHarness h;
  TensorId x = h.input("x", shape);
  TensorId y = h.intermediate("y", y_shape);
  h.node(op, "op", {x}, {y}, std::move(attributes));
  Status valid = h.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = h.create();
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());
  h.set(x, xs);
  if (in_place) h.alias(y, x);
  Status ran = h.run(**kernel, sequence);
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  return h.get(y);
}

void check_binary(OpType op, const Shape& a_shape, const Shape& b_shape, size_t sequence,
                  bool in_place) {
  INFO(std::string(op_type_name(op))
       << " a " << shape_string(a_shape) << " b " << shape_string(b_shape) << " S " << sequence
       << " in place " << in_place);
  OpHarness h;
  TensorId a = h.input("a", a_shape);
  TensorId b = h.input("b", b_shape);
  TensorId y = h.intermediate("y", a_shape);
  h.node(op, "op", {a, b}, {y});
  Status valid = h.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = h.create();
  REQUIRE(kernel.is_ok());
  const size_t na = shape_elements(a_shape, sequence), nb = shape_elements(b_shape, sequence);
  std::vector<float> as = random_floats(na, -3, 3, 31), bs = random_floats(nb, -3, 3, 32);
  h.set(a, as);
  h.set(b, bs);
  if (in_place) h.alias(y, a);
  REQUIRE(h.run(**kernel, sequence).is_ok());
  const std::vector<float> ys = h.get(y);
  size_t failures = 0;
  for (size_t i = 0; i < na; ++i) {
    // b repeats over a's leading axes: element i of a meets element i mod |b| of b.
    const float expected = op == OpType::kAdd ? as[i] + bs[i % nb] : as[i] * bs[i % nb];
    if (ys[i] != expected && failures++ < 5) FAIL_CHECK(mismatch(i, ys[i], expected, 0));
  }
  CHECK(failures == 0);
}

}  // namespace

TEST_SUITE("elementwise_ops") {
  TEST_CASE("Add and Mul: equal shapes, suffix broadcasting, scalars, in place") {
    for (OpType op : {OpType::kAdd, OpType::kMul}) {
      check_binary(op, {kSequenceDim, 17}, {kSequenceDim, 17}, 3, false);
      check_binary(op, {kSequenceDim, 17}, {17}, 5, false);
      check_binary(op, {2, kSequenceDim, 3}, {kSequenceDim, 3}, 4, true);
      check_binary(op, {1000}, {1000}, 1, true);
      check_binary(op, {kSequenceDim, 257}, {}, 2, true);
      check_binary(op, {kSequenceDim, 1}, {1}, 1, false);
    }
  }

  TEST_CASE("Add and Mul reject b that is not a suffix of a, and non-f32 operands") {
    OpHarness h;
    TensorId a = h.input("a", {kSequenceDim, 8});
    TensorId b = h.input("b", {8, 1});
    TensorId ids = h.input("ids", {8}, DataType::kI32);
    TensorId y = h.intermediate("y", {kSequenceDim, 8});
    h.node(OpType::kAdd, "add", {a, b}, {y});
    CHECK(contains(h.infer().message(),
                   "node 'add' (Add): operand 1 (b) 'b' [8, 1] must have the shape of operand 0 "
                   "(a) 'a' [S, 8] or a suffix of it"));
    h.graph.nodes.back().inputs = {a, ids};
    CHECK(contains(h.infer().message(), "operand 1 (b) 'ids' must be f32, found i32"));
    h.graph.nodes.back().inputs = {a, a};
    h.graph.nodes.back().attributes = {{"axis", int64_t{0}}};
    CHECK(contains(h.infer().message(), "unknown attribute 'axis' (Add takes no attributes)"));
  }

  TEST_CASE("Activation matches activation.h's definitions, in place too") {
    for (Activation activation : kAllActivations) {
      for (size_t n : {1, 3, 17, 257, 1000}) {
        INFO("activation " << std::string(activation_name(activation)) << " n " << n);
        std::vector<float> xs = random_floats(2 * n, -8, 8, 33);
        std::vector<float> ys =
            run_unary(OpType::kActivation, {kSequenceDim, int64_t(n)}, {kSequenceDim, int64_t(n)},
                      2, xs, activation_attributes(activation),
                      /*in_place=*/n % 2 == 1);
        size_t failures = 0;
        for (size_t i = 0; i < xs.size(); ++i) {
          const double expected = reference_activation(activation, xs[i]);
          const double tolerance =  // activation.h's contract
              activation_tolerance(activation) * std::fabs(expected) + 0x1p-149;
          if (!(std::fabs(ys[i] - expected) <= tolerance) && failures++ < 5) {
            FAIL_CHECK(mismatch(i, ys[i], expected, tolerance));
          }
        }
        CHECK(failures == 0);
      }
    }
  }

  TEST_CASE("Activation needs a known 'activation' attribute") {
    OpHarness h;
    TensorId x = h.input("x", {4});
    TensorId y = h.intermediate("y", {4});
    h.node(OpType::kActivation, "act", {x}, {y});
    CHECK(contains(h.infer().message(),
                   "node 'act' (Activation): attribute 'activation' is required"));
    h.graph.nodes.back().attributes = {{"activation", std::string("gelu")}};
    CHECK(contains(h.infer().message(), "unknown activation 'gelu' (expected one of: none, relu"));
    h.graph.nodes.back().attributes = {{"activation", int64_t{1}}};
    CHECK(contains(h.infer().message(), "attribute 'activation' must be a string, found int"));
    CHECK_FALSE(h.create().is_ok());
  }

  TEST_CASE("Softmax matches the double reference over odd lengths and large magnitudes") {
    for (size_t n : {1, 3, 17, 257, 1000}) {
      for (float scale : {1.0f, 100.0f}) {
        INFO("n " << n << " scale " << scale);
        std::vector<float> xs = random_floats(3 * n, -scale, scale, 34);
        xs[0] = 3e38f;  // no overflow: the maximum is subtracted first
        std::vector<float> ys = run_unary(OpType::kSoftmax, {kSequenceDim, int64_t(n)},
                                          {kSequenceDim, int64_t(n)}, 3, xs, {}, scale > 1);
        size_t failures = 0;
        for (size_t row = 0; row < 3; ++row) {
          const float* x = xs.data() + row * n;
          double max = -INFINITY, sum = 0, spread = 0;
          for (size_t i = 0; i < n; ++i) max = std::fmax(max, x[i]);
          for (size_t i = 0; i < n; ++i) sum += std::exp(double(x[i]) - max);
          for (size_t i = 0; i < n; ++i) spread = std::fmax(spread, std::fabs(x[i] - max));
          for (size_t i = 0; i < n; ++i) {
            const double expected = std::exp(double(x[i]) - max) / sum;
            // x − m is rounded once (relative error 2^-24 · |x − m| after exp),
            // expf is within 2 ulp, the sum inherits the worst of its terms,
            // the quotient is rounded once.
            const double tolerance =
                expected * 0x1p-23 * (4 + std::fabs(x[i] - max) + spread) + 0x1p-149;
            const size_t at = row * n + i;
            if (!(std::fabs(ys[at] - expected) <= tolerance) && failures++ < 5) {
              FAIL_CHECK(mismatch(at, ys[at], expected, tolerance));
            }
          }
        }
        CHECK(failures == 0);
      }
    }
  }

  TEST_CASE(
      "Softmax special rows: all −inf gives zeros, a NaN or +inf gives NaN, −inf entries give 0") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> xs = {-kInf, -kInf, -kInf, 1.0f,  nan,  2.0f,
                             kInf,  0.0f,  1.0f,  -kInf, 0.0f, -kInf};
    std::vector<float> ys =
        run_unary(OpType::kSoftmax, {kSequenceDim, 3}, {kSequenceDim, 3}, 4, xs);
    for (size_t i = 0; i < 3; ++i) CHECK(ys[i] == 0.0f);
    for (size_t i = 3; i < 9; ++i) CHECK(std::isnan(ys[i]));
    CHECK(ys[9] == 0.0f);
    CHECK(ys[11] == 0.0f);
    CHECK(ys[10] == 1.0f);
  }

  TEST_CASE("MeanPool averages the S rows in double") {
    for (size_t d : {1, 3, 17, 65, 257}) {
      for (size_t s : {1, 2, 7, 50}) {
        INFO("D " << d << " S " << s);
        std::vector<float> xs = random_floats(s * d, -1000, 1000, 35);
        std::vector<float> ys =
            run_unary(OpType::kMeanPool, {kSequenceDim, int64_t(d)}, {1, int64_t(d)}, s, xs);
        REQUIRE(ys.size() == d);
        for (size_t j = 0; j < d; ++j) {
          double sum = 0, magnitude = 0;
          for (size_t r = 0; r < s; ++r) {
            sum += xs[r * d + j];
            magnitude += std::fabs(xs[r * d + j]);
          }
          const double expected = sum / double(s);
          // One float rounding of the mean, plus double rounding of the sum.
          const double tolerance = 0x1p-24 * std::fabs(expected) + 0x1p-50 * magnitude / double(s);
          CHECK_MESSAGE(std::fabs(ys[j] - expected) <= tolerance,
                        mismatch(j, ys[j], expected, tolerance));
        }
      }
    }
  }

  TEST_CASE("MeanPool mode max takes each column's largest value, NaN sticking") {
    for (size_t d : {1, 3, 17, 65}) {
      for (size_t s : {1, 2, 7, 50}) {
        INFO("D " << d << " S " << s);
        std::vector<float> xs = random_floats(s * d, -1000, 1000, 37);
        if (d > 2 && s > 1) {
          xs[(s - 1) * d + 1] = kInf;     // the last row's +inf wins its column
          xs[0 * d + 2] = std::nanf("");  // a NaN in the first row poisons its column
        }
        std::vector<float> ys = run_unary(OpType::kMeanPool, {kSequenceDim, int64_t(d)},
                                          {1, int64_t(d)}, s, xs, {{"mode", std::string("max")}});
        REQUIRE(ys.size() == d);
        for (size_t j = 0; j < d; ++j) {
          bool nan = false;
          float expected = -kInf;
          for (size_t r = 0; r < s; ++r) {
            nan = nan || std::isnan(xs[r * d + j]);
            expected = std::fmax(expected, xs[r * d + j]);
          }
          if (nan) {
            CHECK_MESSAGE(std::isnan(ys[j]), "column " << j);
          } else {
            CHECK_MESSAGE(ys[j] == expected, mismatch(j, ys[j], expected, 0));
          }
        }
      }
    }
    // A NaN in a later row than the maximum, and a column of -inf.
    std::vector<float> xs = {5, -kInf, std::nanf(""), -kInf, 2, -kInf};
    std::vector<float> ys = run_unary(OpType::kMeanPool, {kSequenceDim, 2}, {1, 2}, 3, xs,
                                      {{"mode", std::string("max")}});
    CHECK(std::isnan(ys[0]));
    CHECK(ys[1] == -kInf);
  }

  TEST_CASE("MeanPool takes [R, D] only and mode mean or max; L2Normalize checks eps") {
    OpHarness h;
    TensorId x3 = h.input("x3", {2, kSequenceDim, 4});
    TensorId y = h.intermediate("y", {1, 4});
    h.node(OpType::kMeanPool, "pool", {x3}, {y});
    CHECK(contains(
        h.infer().message(),
        "operand 0 (x) 'x3' must have shape [R, D] with R >= 1 (R may be S), found [2, S, 4]"));
    h.graph.nodes.back().attributes = {{"mode", std::string("min")}};
    CHECK(contains(h.infer().message(),
                   "node 'pool' (MeanPool): attribute 'mode' must be \"mean\" or \"max\", "
                   "found \"min\""));
    h.graph.nodes.back().attributes = {{"mode", int64_t{1}}};
    CHECK(contains(h.infer().message(), "'mode'"));
    h.graph.nodes.back().op = OpType::kL2Normalize;
    h.graph.nodes.back().attributes = {{"eps", -1.0}};
    CHECK(contains(h.infer().message(),
                   "node 'pool' (L2Normalize): attribute 'eps' must be finite and >= 0"));
  }

  TEST_CASE("L2Normalize divides each row by max(‖x‖₂, eps)") {
    for (size_t n : {1, 3, 17, 257, 1000}) {
      std::vector<float> xs = random_floats(2 * n, -5, 5, 36);
      for (size_t i = n; i < 2 * n; ++i) xs[i] *= 1e-14f;  // second row: norm below eps = 1e-12
      std::vector<float> ys = run_unary(OpType::kL2Normalize, {2, int64_t(n)}, {2, int64_t(n)}, 1,
                                        xs, {}, /*in_place=*/n == 17);
      for (size_t row = 0; row < 2; ++row) {
        double squares = 0;
        for (size_t i = 0; i < n; ++i) squares += double(xs[row * n + i]) * xs[row * n + i];
        const double denominator = std::fmax(std::sqrt(squares), 1e-12);
        for (size_t i = 0; i < n; ++i) {
          const size_t at = row * n + i;
          const double expected = xs[at] / denominator;
          const double tolerance =
              0x1p-23 * std::fabs(expected) + 0x1p-149;  // one rounding, margin 2
          CHECK_MESSAGE(std::fabs(ys[at] - expected) <= tolerance,
                        mismatch(at, ys[at], expected, tolerance));
        }
      }
    }
    // A zero row stays zero (0 / eps), with PyTorch's default eps.
    std::vector<float> zeros =
        run_unary(OpType::kL2Normalize, {5}, {5}, 1, std::vector<float>(5, 0.0f));
    for (float z : zeros) CHECK(z == 0.0f);
  }
}

}  // namespace normrt::testing
