// fused_linear() rejects bad calls with a message that names the offender,
// and writes nothing when it does: sum_dst without a residual, y overlapping
// the residual or x, sum_dst overlapping y or x, null pointers, short
// strides, and norm parameters the norm itself would reject.

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/fused_test_support.h"
#include "tests/kernels/linear_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kM = 2, kN = 40, kK = 8;

struct Operands {
  Operands() : problem(make_fused_problem(kM, kN, kK, WeightType::kF32, 61)) {
    Expected<PackedWeights> p =
        pack_weights(problem.w.data(), kN, kK, WeightType::kF32, runnable_isas().back());
    REQUIRE(p.is_ok());
    w = std::move(p).value();
    // One buffer that the overlapping cases carve pointers out of.
    arena.assign(16 * kN * kK, 0.5f);
  }
  FusedProblem problem;
  PackedWeights w;
  std::vector<float> arena;
  std::vector<float> residual = std::vector<float>(kM * kN, 1.0f);
  std::vector<float> sum = std::vector<float>(kM * kN, 0.0f);
};

// Runs the call on a guarded y (unless y_override is set) and returns its
// message; checks that a rejected call left y untouched.
std::string rejection(Operands& o, const LinearEpilogue& e, size_t m = kM, const float* x = nullptr,
                      float* y_override = nullptr, bool null_y = false) {
  GuardedOutput y(m == 0 ? 1 : m, kN, 0);
  float* y_ptr = null_y ? nullptr : y_override ? y_override : y.data();
  const float* x_ptr = x ? x : o.problem.x.data();
  const Status s = fused_linear(o.w, x_ptr, m, kK, e, y_ptr, kN);
  if (s.is_ok()) return "";
  for (size_t r = 0; r < (m == 0 ? 1 : m); ++r) {
    for (size_t c = 0; c < kN; ++c) {
      if (!y.untouched(r, c)) return "rejected, but y was written: " + s.message();
    }
  }
  const Status again = fused_linear_validate(o.w, x_ptr, m, kK, e, y_ptr, kN);
  if (again.is_ok() || again.message() != s.message()) {
    return "fused_linear_validate disagrees with fused_linear: " + s.message();
  }
  return s.message();
}

bool contains(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("fused_linear") {
  TEST_CASE("fused_linear rejects bad calls with a message naming the offender") {
    Operands o;
    auto check = [](const std::string& message, const std::string& expected) {
      CHECK_MESSAGE(contains(message, "fused_linear: "), "message: '" << message << "'");
      CHECK_MESSAGE(contains(message, expected),
                    "message: '" << message << "', expected '" << expected << "'");
    };

    SUBCASE("a valid call is accepted") {
      LinearEpilogue e;
      e.normalize = true;
      CHECK(rejection(o, e) == "");
    }
    SUBCASE("m = 0 is a no-op") {
      LinearEpilogue e;
      CHECK(rejection(o, e, 0) == "");
    }
    SUBCASE("sum_dst without a residual") {
      LinearEpilogue e;
      e.sum_dst = o.sum.data();
      e.sum_stride = kN;
      check(rejection(o, e), "sum_dst is set but residual is null");
    }
    // fused_linear.h says "y may be the residual buffer (same stride)"; the
    // validator rejects it (the matmul writes y before the residual is read),
    // as this test expects: the header's sentence is stale.
    SUBCASE("y overlapping the residual, partly or as the same buffer") {
      for (size_t shift : {0, 5}) {
        CAPTURE(shift);
        LinearEpilogue e;
        float* y = o.arena.data();
        e.residual = y + shift;
        e.residual_stride = kN;
        check(rejection(o, e, kM, nullptr, y), "y overlaps residual");
      }
    }
    SUBCASE("y overlapping x") {
      LinearEpilogue e;
      float* y = o.arena.data();
      check(rejection(o, e, kM, y + 3, y), "y overlaps x");
    }
    SUBCASE("sum_dst overlapping y") {
      LinearEpilogue e;
      float* y = o.arena.data();
      e.residual = o.residual.data();
      e.residual_stride = kN;
      e.sum_dst = y + kN;
      e.sum_stride = kN;
      check(rejection(o, e, kM, nullptr, y), "sum_dst overlaps y");
    }
    SUBCASE("sum_dst overlapping x") {
      LinearEpilogue e;
      e.residual = o.residual.data();
      e.residual_stride = kN;
      e.sum_dst = o.arena.data();
      e.sum_stride = kN;
      check(rejection(o, e, kM, o.arena.data() + 7), "sum_dst overlaps x");
    }
    SUBCASE("sum_dst partly overlapping the residual") {
      LinearEpilogue e;
      e.residual = o.arena.data();
      e.residual_stride = kN;
      e.sum_dst = o.arena.data() + 1;
      e.sum_stride = kN;
      check(rejection(o, e), "sum_dst overlaps residual");
    }
    SUBCASE("null y, null x") {
      LinearEpilogue e;
      check(rejection(o, e, kM, nullptr, nullptr, true), "y is null");
      GuardedOutput y(kM, kN, 0);
      const Status s = fused_linear(o.w, nullptr, kM, kK, e, y.data(), kN);
      CHECK(contains(s.message(), "x is null"));
    }
    SUBCASE("short residual and sum strides when m > 1") {
      LinearEpilogue e;
      e.residual = o.residual.data();
      e.residual_stride = kN - 1;
      check(rejection(o, e), "residual_stride");
      e.residual_stride = kN;
      e.sum_dst = o.sum.data();
      e.sum_stride = kN - 1;
      check(rejection(o, e), "sum_stride");
    }
    SUBCASE("pRMSNorm's p outside (0, 1], or covering no element") {
      for (double p : {0.0, -0.5, 1.5, static_cast<double>(std::nanf("")), 1.0 / 64}) {
        CAPTURE(p);
        LinearEpilogue e;
        e.normalize = true;
        e.norm.kind = NormKind::kPRmsNorm;
        e.norm.p = p;
        check(rejection(o, e), "p");
      }
    }
    SUBCASE("a negative or NaN eps") {
      for (float eps : {-1e-5f, std::nanf("")}) {
        LinearEpilogue e;
        e.normalize = true;
        e.norm.eps = eps;
        check(rejection(o, e), "eps");
      }
    }
    SUBCASE("the (1 + g) convention without a gain") {
      LinearEpilogue e;
      e.normalize = true;
      e.norm.gain_convention = GainConvention::kOnePlus;
      check(rejection(o, e), "gain");
    }
    SUBCASE("a gain overlapping y") {
      LinearEpilogue e;
      e.normalize = true;
      float* y = o.arena.data();
      e.gain = y + 4;
      check(rejection(o, e, kM, nullptr, y), "gain overlaps");
    }
  }

  // The entry point a runtime plan uses after validating once: the same
  // result as the checked call, bit for bit, for m = 1 (GEMV) and m > 1
  // (GEMM), every epilogue stage on; debug builds still refuse a bad call.
  TEST_CASE("fused_linear_unchecked computes what fused_linear computes") {
    for (size_t m : {size_t{1}, kM}) {
      CAPTURE(m);
      Operands o;
      LinearEpilogue e;
      e.bias = o.problem.bias.data();
      e.residual = o.residual.data();
      e.residual_stride = kN;
      e.normalize = true;
      e.norm.kind = NormKind::kPRmsNorm;
      e.norm.p = 0.25;
      e.gain = o.problem.gain.data();
      e.norm_bias = o.problem.norm_bias.data();
      e.activation = Activation::kGeluErf;
      std::vector<float> checked(m * kN, -1.0f), unchecked(m * kN, -2.0f);
      std::vector<float> checked_sum(m * kN, -1.0f), unchecked_sum(m * kN, -2.0f);
      e.sum_dst = checked_sum.data();
      e.sum_stride = kN;
      REQUIRE(fused_linear(o.w, o.problem.x.data(), m, kK, e, checked.data(), kN).is_ok());
      e.sum_dst = unchecked_sum.data();
      REQUIRE(
          fused_linear_unchecked(o.w, o.problem.x.data(), m, kK, e, unchecked.data(), kN).is_ok());
      for (size_t i = 0; i < m * kN; ++i) {
        CAPTURE(i);
        REQUIRE(std::isfinite(checked[i]));
        CHECK(checked[i] == unchecked[i]);
        CHECK(checked_sum[i] == unchecked_sum[i]);
      }
    }
  }

#ifndef NDEBUG
  TEST_CASE("fused_linear_unchecked still refuses a bad call in a debug build") {
    Operands o;
    LinearEpilogue e;
    e.sum_dst = o.sum.data();  // without a residual
    e.sum_stride = kN;
    GuardedOutput y(kM, kN, 0);
    const Status s = fused_linear_unchecked(o.w, o.problem.x.data(), kM, kK, e, y.data(), kN);
    CHECK(contains(s.message(), "sum_dst is set but residual is null"));
  }
#endif
}

}  // namespace normrt::testing
