// LayerNorm / RmsNorm / PRmsNorm ops against the double reference of the
// equations (op_reference.h), with norm.h's accuracy contract as tolerance:
// every convention, optional operand, odd row length and S > 1, on every ISA.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

struct NormCase {
  OpType op = OpType::kLayerNorm;
  size_t n = 8;
  size_t sequence = 3;
  bool gain = true, bias = true, residual = false, sum = false;
  EpsPlacement placement = EpsPlacement::kInsideSqrt;
  GainConvention convention = GainConvention::kAsStored;
  double p = 0.5;
  double eps = 1e-5;
};

NormKind kind_of(OpType op) {
  return op == OpType::kLayerNorm ? NormKind::kLayerNorm
         : op == OpType::kRmsNorm ? NormKind::kRmsNorm
                                  : NormKind::kPRmsNorm;
}

// Builds the node with x [S, n] (rank 3 [2, S, n] if `rank3`), runs it on
// `isa` and checks y (and sum) element by element.
void check_norm_case(const NormCase& c, Isa isa, bool rank3 = false) {
  INFO("op " << std::string(op_type_name(c.op)) << " n " << c.n << " S " << c.sequence << " gain "
             << c.gain << " bias " << c.bias << " residual " << c.residual << " sum " << c.sum
             << " isa " << std::string(isa_name(isa)) << " rank3 " << rank3);
  OpHarness h;
  const int64_t n = static_cast<int64_t>(c.n);
  const Shape shape = rank3 ? Shape{2, kSequenceDim, n} : Shape{kSequenceDim, n};
  const size_t rows = c.sequence * (rank3 ? 2 : 1);
  TensorId x = h.input("x", shape);
  std::vector<float> gain = c.gain ? random_floats(c.n, 0.5f, 1.5f, 11) : std::vector<float>{};
  std::vector<float> bias = c.bias ? random_floats(c.n, -0.5f, 0.5f, 12) : std::vector<float>{};
  TensorId g = c.gain ? h.weight("gain", {n}, gain) : kNoTensor;
  TensorId b = c.bias ? h.weight("bias", {n}, bias) : kNoTensor;
  TensorId r = c.residual ? h.input("residual", shape) : kNoTensor;
  TensorId y = h.intermediate("y", shape);
  TensorId sum = c.sum ? h.intermediate("sum", shape) : kNoTensor;
  std::vector<Attribute> attributes = {{"eps", c.eps}};
  if (c.placement == EpsPlacement::kAddedToRms)
    attributes.push_back({"eps_placement", std::string("added_to_rms")});
  if (c.convention == GainConvention::kOnePlus)
    attributes.push_back({"gain_convention", std::string("one_plus")});
  if (c.op == OpType::kPRmsNorm) attributes.push_back({"p", c.p});
  std::vector<TensorId> inputs = {x, g, b, r};
  while (!inputs.empty() && inputs.back() == kNoTensor) inputs.pop_back();
  std::vector<TensorId> outputs = {y};
  if (c.sum) outputs.push_back(sum);
  h.node(c.op, "norm", inputs, outputs, attributes);
  Status valid = h.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = h.create(isa);
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());

  // Rows with an offset and a spread, so that centering and scaling matter.
  std::vector<float> xs = random_floats(rows * c.n, -2.0f, 3.0f, 13);
  std::vector<float> rs = random_floats(rows * c.n, -1.0f, 1.0f, 14);
  h.set(x, xs);
  if (c.residual) h.set(r, rs);
  Status ran = h.run(**kernel, c.sequence);
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());

  NormParams params;
  params.kind = kind_of(c.op);
  params.eps = static_cast<float>(c.eps);
  params.eps_placement = c.placement;
  params.gain_convention = c.convention;
  params.p = c.p;
  const std::vector<float> ys = h.get(y);
  const std::vector<float> sums = c.sum ? h.get(sum) : std::vector<float>{};
  size_t failures = 0;
  for (size_t row = 0; row < rows; ++row) {
    std::vector<double> s(c.n);
    for (size_t i = 0; i < c.n; ++i) {
      const size_t at = row * c.n + i;
      // The kernel normalizes the float sum s = x + r (norm.h), which is also the sum output.
      const float s_f = c.residual ? xs[at] + rs[at] : xs[at];
      s[i] = s_f;
      if (c.sum && sums[at] != s_f && failures++ < 5) {
        FAIL_CHECK("sum " << mismatch(at, sums[at], s_f, 0));
      }
    }
    NormReference ref = reference_norm(params, s, gain, bias);
    for (size_t i = 0; i < c.n; ++i) {
      const size_t at = row * c.n + i;
      const double tolerance = norm_tolerance(params, ref, gain, bias, i);
      if (!(std::fabs(ys[at] - ref.y[i]) <= tolerance) && failures++ < 5) {
        FAIL_CHECK("y " << mismatch(at, ys[at], ref.y[i], tolerance));
      }
    }
  }
  CHECK(failures == 0);
}

Status infer_error(OpType op, std::vector<Attribute> attributes, int64_t n = 8,
                   bool with_gain = true) {
  OpHarness h;
  TensorId x = h.input("x", {kSequenceDim, n});
  TensorId g = with_gain ? h.weight("g", {n}, std::vector<float>(size_t(n), 1.0f)) : kNoTensor;
  TensorId y = h.intermediate("y", {kSequenceDim, n});
  h.node(op, "ln1", {x, g}, {y}, std::move(attributes));
  Status inferred = h.infer();
  auto created = h.create();
  // create() repeats infer_shapes()'s checks: both must agree.
  CHECK(inferred.is_ok() == created.is_ok());
  return inferred;
}

}  // namespace

TEST_SUITE("norm_ops") {
  TEST_CASE("each norm matches the reference over odd row lengths, on every ISA") {
    for (Isa isa : runnable_isas()) {
      for (OpType op : {OpType::kLayerNorm, OpType::kRmsNorm, OpType::kPRmsNorm}) {
        for (size_t n : {1, 3, 17, 257, 1000}) {
          NormCase c;
          c.op = op;
          c.n = n;
          c.p = n == 1 ? 1.0 : 0.5;
          check_norm_case(c, isa);
        }
      }
    }
  }

  TEST_CASE("optional operands: no gain, no bias, a residual with and without the sum") {
    for (OpType op : {OpType::kLayerNorm, OpType::kRmsNorm, OpType::kPRmsNorm}) {
      for (int mask = 0; mask < 8; ++mask) {
        NormCase c;
        c.op = op;
        c.n = 33;
        c.gain = mask & 1;
        c.bias = mask & 2;
        c.residual = mask & 4;
        c.sum = c.residual && c.gain;
        check_norm_case(c, runnable_isas().back());
      }
    }
  }

  TEST_CASE("conventions: eps added to the RMS, (1 + g) gains, large eps, S = 1 and rank 3") {
    for (OpType op : {OpType::kLayerNorm, OpType::kRmsNorm, OpType::kPRmsNorm}) {
      NormCase c;
      c.op = op;
      c.n = 65;
      c.placement = EpsPlacement::kAddedToRms;
      c.convention = GainConvention::kOnePlus;
      c.eps = 0.25;
      c.p = 0.3;
      check_norm_case(c, runnable_isas().back());
      c.sequence = 1;
      c.residual = c.sum = true;
      check_norm_case(c, runnable_isas().back(), /*rank3=*/true);
    }
  }

  TEST_CASE("in place: y may be x") {
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, 19});
    TensorId y = h.intermediate("y", {kSequenceDim, 19});
    h.node(OpType::kRmsNorm, "rms", {x}, {y});
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    std::vector<float> xs = random_floats(2 * 19, -1, 1, 5);
    h.set(x, xs);
    h.alias(y, x);
    REQUIRE(h.run(**kernel, 2).is_ok());
    const std::vector<float> ys = h.get(y);
    NormParams params;
    params.kind = NormKind::kRmsNorm;
    for (size_t row = 0; row < 2; ++row) {
      std::vector<double> s(xs.begin() + row * 19, xs.begin() + (row + 1) * 19);
      NormReference ref = reference_norm(params, s, {}, {});
      for (size_t i = 0; i < 19; ++i) {
        const double tolerance = norm_tolerance(params, ref, {}, {}, i);
        CHECK_MESSAGE(std::fabs(ys[row * 19 + i] - ref.y[i]) <= tolerance,
                      mismatch(row * 19 + i, ys[row * 19 + i], ref.y[i], tolerance));
      }
    }
  }

  TEST_CASE("unknown attributes are rejected, naming the ones the op takes") {
    Status s = infer_error(OpType::kLayerNorm, {{"epsilon", 1e-6}});
    CHECK(s.message() ==
          "node 'ln1' (LayerNorm): unknown attribute 'epsilon' (LayerNorm takes eps, "
          "eps_placement, gain_convention, axes)");
    s = infer_error(OpType::kPRmsNorm, {{"p", 0.5}, {"fraction", 0.5}});
    CHECK(contains(
        s.message(),
        "unknown attribute 'fraction' (PRmsNorm takes eps, eps_placement, gain_convention, axes, "
        "p)"));
    s = infer_error(OpType::kRmsNorm, {{"p", 0.5}});
    CHECK(contains(s.message(), "unknown attribute 'p'"));
  }

  TEST_CASE("bad attribute values are rejected with the value found") {
    auto check = [](OpType op, std::vector<Attribute> attributes, std::string part) {
      Status s = infer_error(op, std::move(attributes));
      INFO("message: " << s.message());
      REQUIRE_FALSE(s.is_ok());
      CHECK(contains(s.message(), "node 'ln1'"));
      CHECK(contains(s.message(), part));
    };
    check(OpType::kLayerNorm, {{"eps", -1e-5}}, "'eps' must be finite and >= 0, found -1e-05");
    check(OpType::kLayerNorm, {{"eps", 1e300}}, "'eps' must be finite");
    check(OpType::kLayerNorm, {{"eps", std::string("small")}},
          "'eps' must be a float, found string");
    check(OpType::kRmsNorm, {{"eps_placement", std::string("outside")}}, "found \"outside\"");
    check(OpType::kRmsNorm, {{"gain_convention", std::string("1+g")}}, "found \"1+g\"");
    check(OpType::kPRmsNorm, {}, "attribute 'p'");
    check(OpType::kPRmsNorm, {{"p", 0.0}}, "'p' must be in (0, 1], found 0");
    check(OpType::kPRmsNorm, {{"p", 1.5}}, "found 1.5");
    // ⌊0.1 · 8⌋ = 0 elements: no statistic.
    check(OpType::kPRmsNorm, {{"p", 0.1}}, "floor(0.1*8) = 0");
    Status s = infer_error(OpType::kLayerNorm, {{"gain_convention", std::string("one_plus")}}, 8,
                           /*with_gain=*/false);
    CHECK(contains(s.message(), "needs a gain"));
    // An int literal is a valid float (eps = 0, p = 1).
    CHECK(infer_error(OpType::kPRmsNorm, {{"p", int64_t{1}}, {"eps", int64_t{0}}}).is_ok());
  }

  TEST_CASE("operand shapes and dtypes are checked") {
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, 8});
    TensorId g5 = h.weight("g5", {5}, std::vector<float>(5, 1.0f));
    TensorId r = h.input("r", {kSequenceDim, 7});
    TensorId ids = h.input("ids", {kSequenceDim, 8}, DataType::kI32);
    TensorId y = h.intermediate("y", {kSequenceDim, 8});
    TensorId sum = h.intermediate("sum", {kSequenceDim, 8});
    h.node(OpType::kLayerNorm, "ln", {x, g5}, {y});
    CHECK(contains(h.infer().message(), "operand 1 (gain) 'g5' must have shape [8], found [5]"));
    h.graph.nodes.back().inputs = {x, kNoTensor, kNoTensor, r};
    CHECK(contains(h.infer().message(),
                   "operand 3 (residual) 'r' must have shape [S, 8], found [S, 7]"));
    h.graph.nodes.back().inputs = {ids};
    CHECK(contains(h.infer().message(), "operand 0 (x) 'ids' must be f32, found i32"));
    h.graph.nodes.back().inputs = {x};
    h.graph.nodes.back().outputs = {y, sum};
    CHECK(contains(h.infer().message(), "output 1 (sum) needs operand 3 (residual)"));
    h.graph.nodes.back().inputs = {kNoTensor};
    CHECK(contains(h.infer().message(), "operand 0 (x) is required"));
  }
}

}  // namespace normrt::testing
