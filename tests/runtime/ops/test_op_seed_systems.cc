// The ops of issue 21's remaining systems against double references written
// from their equations: Abs (exact), MatMul and OrderViolation (sums in
// double: within one float rounding of the double result), MixtureDensity
// (Graves' eqs. 18–22 with the bias of eqs. 61–62, within 2 float roundings),
// AdditiveAttention's key_bias; shape and attribute errors naming what is
// wrong. MixtureSample's bit-exactness is checked against the Python
// reference sampler in tests/models/handwriting; here: the step counter, the
// counter-based determinism and its errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// |y − ref| within one rounding to float of ref (plus a denormal floor).
bool within_float_rounding(float y, double ref, double roundings = 1) {
  return std::fabs(double(y) - ref) <= roundings * 0x1.0p-24 * std::fabs(ref) + 1e-40;
}

}  // namespace

TEST_SUITE("seed_ops") {
  TEST_CASE("Abs is |x| exactly, in place too, NaN stays NaN") {
    for (bool in_place : {false, true}) {
      OpHarness h;
      TensorId x = h.input("x", {kSequenceDim, 13});
      TensorId y = h.intermediate("y", {kSequenceDim, 13});
      h.node(OpType::kAbs, "abs", {x}, {y});
      REQUIRE(h.validate().is_ok());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      std::vector<float> xs = random_floats(5 * 13, -4, 4, 7);
      xs[3] = -0.0f;
      xs[4] = kNaN;
      xs[5] = -std::numeric_limits<float>::infinity();
      h.set(x, xs);
      if (in_place) h.alias(y, x);
      REQUIRE(h.run(**kernel, 5).is_ok());
      const std::vector<float> ys = h.get(y);
      for (size_t i = 0; i < xs.size(); ++i) {
        if (std::isnan(xs[i])) {
          CHECK(std::isnan(ys[i]));
        } else {
          CHECK(ys[i] == std::fabs(xs[i]));
          CHECK(!std::signbit(ys[i]));
        }
      }
    }
  }

  TEST_CASE("MatMul is a·bᵀ for S or fixed rows, odd K") {
    for (size_t k : {1, 7, 33, 130}) {
      OpHarness h;
      TensorId a = h.input("a", {kSequenceDim, static_cast<int64_t>(k)});
      TensorId b = h.input("b", {3, static_cast<int64_t>(k)});
      TensorId y = h.intermediate("y", {kSequenceDim, 3});
      h.node(OpType::kMatMul, "mm", {a, b}, {y});
      REQUIRE(h.validate().is_ok());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      const size_t s = 9;
      const std::vector<float> as = random_floats(s * k, -2, 2, 11);
      const std::vector<float> bs = random_floats(3 * k, -2, 2, 12);
      h.set(a, as);
      h.set(b, bs);
      REQUIRE(h.run(**kernel, s).is_ok());
      const std::vector<float> ys = h.get(y);
      for (size_t i = 0; i < s; ++i)
        for (size_t j = 0; j < 3; ++j) {
          long double ref = 0;
          for (size_t t = 0; t < k; ++t) ref += (long double)as[i * k + t] * bs[j * k + t];
          INFO("K " << k << " row " << i << " col " << j << " y " << ys[i * 3 + j] << " ref "
                    << double(ref));
          CHECK(within_float_rounding(ys[i * 3 + j], double(ref), 1.01));
        }
    }
  }

  TEST_CASE("MatMul rejects mismatched K and non-matrices") {
    OpHarness h;
    TensorId a = h.input("a", {kSequenceDim, 4});
    TensorId b = h.input("b", {1, 5});
    TensorId y = h.intermediate("y", {kSequenceDim, 1});
    h.node(OpType::kMatMul, "mm", {a, b}, {y});
    Status s = h.validate();
    REQUIRE(!s.is_ok());
    CHECK(contains(s.message(), "node 'mm' (MatMul)"));
    CHECK(contains(s.message(), "same K"));
    OpHarness h2;
    TensorId a2 = h2.input("a", {4});
    TensorId b2 = h2.input("b", {1, 4});
    TensorId y2 = h2.intermediate("y", {1, 1});
    h2.node(OpType::kMatMul, "mm", {a2, b2}, {y2});
    CHECK(contains(h2.validate().message(), "must be a matrix"));
  }

  TEST_CASE("OrderViolation is Σ max(0, x − y)² over every pair; zero when x ≤ y; NaN spreads") {
    const size_t d = 17, rows_x = 5, rows_y = 4;
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, static_cast<int64_t>(d)});
    TensorId y = h.input("y", {static_cast<int64_t>(rows_y), static_cast<int64_t>(d)});
    TensorId e = h.intermediate("e", {kSequenceDim, static_cast<int64_t>(rows_y)});
    h.node(OpType::kOrderViolation, "order", {x, y}, {e});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    std::vector<float> xs = random_floats(rows_x * d, -1, 1, 21);
    std::vector<float> ys = random_floats(rows_y * d, -1, 1, 22);
    // Row 0 of y dominates row 1 of x everywhere: no violation.
    for (size_t t = 0; t < d; ++t) ys[t] = xs[d + t] + 0.25f;
    xs[4 * d + 2] = kNaN;
    h.set(x, xs);
    h.set(y, ys);
    REQUIRE(h.run(**kernel, rows_x).is_ok());
    const std::vector<float> es = h.get(e);
    for (size_t i = 0; i < rows_x; ++i)
      for (size_t j = 0; j < rows_y; ++j) {
        long double ref = 0;
        bool nan = false;
        for (size_t t = 0; t < d; ++t) {
          const long double gap = (long double)xs[i * d + t] - ys[j * d + t];
          nan = nan || std::isnan(xs[i * d + t]);
          if (gap > 0) ref += gap * gap;
        }
        const float got = es[i * rows_y + j];
        INFO("pair " << i << ", " << j << " e " << got << " ref " << double(ref));
        if (nan) {
          CHECK(std::isnan(got));
        } else {
          CHECK(within_float_rounding(got, double(ref), 1.01));
        }
      }
    CHECK(es[1 * rows_y + 0] == 0.0f);
  }

  TEST_CASE("OrderViolation rejects embeddings of different widths") {
    OpHarness h;
    TensorId x = h.input("x", {1, 8});
    TensorId y = h.input("y", {1, 9});
    TensorId e = h.intermediate("e", {1, 1});
    h.node(OpType::kOrderViolation, "order", {x, y}, {e});
    Status s = h.validate();
    REQUIRE(!s.is_ok());
    CHECK(contains(s.message(), "same D"));
  }

  TEST_CASE("MixtureDensity follows Graves' eqs. 18-22 with the sampling bias, in place too") {
    const size_t m = 5, width = 1 + 6 * m, rows = 3;
    for (double b : {0.0, 0.5, 3.0}) {
      for (bool in_place : {false, true}) {
        OpHarness h;
        TensorId y_hat = h.input("y_hat", {kSequenceDim, static_cast<int64_t>(width)});
        TensorId bias = h.input("bias", {1});
        TensorId params = h.intermediate("params", {kSequenceDim, static_cast<int64_t>(width)});
        h.node(OpType::kMixtureDensity, "mdn", {y_hat, bias}, {params},
               {{"components", int64_t(m)}});
        REQUIRE(h.validate().is_ok());
        auto kernel = h.create();
        REQUIRE(kernel.is_ok());
        std::vector<float> in = random_floats(rows * width, -3, 3, 31);
        h.set(y_hat, in);
        h.set(bias, {float(b)});
        if (in_place) h.alias(params, y_hat);
        REQUIRE(h.run(**kernel, rows).is_ok());
        const std::vector<float> out = h.get(in_place ? y_hat : params);
        for (size_t r = 0; r < rows; ++r) {
          const float* x = in.data() + r * width;
          const float* p = out.data() + r * width;
          INFO("row " << r << " bias " << b);
          CHECK(within_float_rounding(p[0], 1.0L / (1.0L + std::exp((long double)x[0])), 2));
          long double total = 0;
          for (size_t j = 0; j < m; ++j) total += std::exp((long double)x[1 + j] * (1 + b));
          for (size_t j = 0; j < m; ++j) {
            INFO("component " << j);
            const long double pi = std::exp((long double)x[1 + j] * (1 + b)) / total;
            CHECK(within_float_rounding(p[1 + j], double(pi), 4));
            CHECK(p[1 + m + j] == x[1 + m + j]);
            CHECK(p[1 + 2 * m + j] == x[1 + 2 * m + j]);
            CHECK(within_float_rounding(p[1 + 3 * m + j],
                                        std::exp((long double)x[1 + 3 * m + j] - b), 2));
            CHECK(within_float_rounding(p[1 + 4 * m + j],
                                        std::exp((long double)x[1 + 4 * m + j] - b), 2));
            CHECK(within_float_rounding(p[1 + 5 * m + j], std::tanh((long double)x[1 + 5 * m + j]),
                                        2));
          }
        }
      }
    }
  }

  TEST_CASE("MixtureDensity: a negative or non-finite bias is a run error; shapes are checked") {
    OpHarness h;
    TensorId y_hat = h.input("y_hat", {1, 13});
    TensorId bias = h.input("bias", {1});
    TensorId params = h.intermediate("params", {1, 13});
    h.node(OpType::kMixtureDensity, "mdn", {y_hat, bias}, {params}, {{"components", int64_t(2)}});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set(y_hat, random_floats(13, -1, 1, 3));
    for (float b : {-0.5f, kNaN}) {
      h.set(bias, {b});
      Status s = h.run(**kernel, 1);
      REQUIRE(!s.is_ok());
      CHECK(contains(s.message(), "node 'mdn' (MixtureDensity): the sampling bias"));
    }
    OpHarness bad;
    TensorId y2 = bad.input("y_hat", {1, 12});
    TensorId p2 = bad.intermediate("params", {1, 12});
    bad.node(OpType::kMixtureDensity, "mdn", {y2}, {p2}, {{"components", int64_t(2)}});
    CHECK(contains(bad.validate().message(), "[R, 1 + 6M] = [R, 13]"));
    OpHarness none;
    TensorId y3 = none.input("y_hat", {1, 13});
    TensorId p3 = none.intermediate("params", {1, 13});
    none.node(OpType::kMixtureDensity, "mdn", {y3}, {p3});
    CHECK(contains(none.validate().message(), "'components'"));
  }

  TEST_CASE("MixtureSample: step + 1, a draw fixed by (seed, step), eos in {0, 1}, errors") {
    const size_t m = 3, width = 1 + 6 * m;
    OpHarness h;
    TensorId params = h.input("params", {1, static_cast<int64_t>(width)});
    TensorId step = h.input("step", {1}, DataType::kI32);
    TensorId point = h.intermediate("point", {1, 3});
    TensorId next = h.intermediate("next", {1}, DataType::kI32);
    h.node(OpType::kMixtureSample, "sample", {params, step}, {point, next},
           {{"components", int64_t(m)}, {"seed", int64_t(12345)}});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    // A valid mixture: weights summing to 1, positive σ, |ρ| < 1.
    std::vector<float> p = {0.5f, 0.2f, 0.3f, 0.5f, 1,    2,    3,    -1,   -2,   -3,
                            0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.0f, 0.5f, -0.9f};
    REQUIRE(p.size() == width);
    h.set(params, p);
    std::vector<std::vector<float>> draws;
    for (int32_t s : {0, 1, 0, 7}) {
      h.set_i32(step, {s});
      REQUIRE(h.run(**kernel, 1).is_ok());
      draws.push_back(h.get(point));
      const std::vector<float> n = h.get(next);
      int32_t next_step;
      std::memcpy(&next_step, n.data(), 4);
      CHECK(next_step == s + 1);
      CHECK((draws.back()[2] == 0.0f || draws.back()[2] == 1.0f));
    }
    CHECK(draws[0] == draws[2]);  // the same step draws the same point
    CHECK(draws[0] != draws[1]);
    for (int32_t s : {-1, std::numeric_limits<int32_t>::max()}) {
      h.set_i32(step, {s});
      Status bad = h.run(**kernel, 1);
      REQUIRE(!bad.is_ok());
      CHECK(contains(bad.message(), "node 'sample' (MixtureSample): step"));
    }
    OpHarness two_rows;
    TensorId p2 = two_rows.input("params", {2, static_cast<int64_t>(width)});
    TensorId s2 = two_rows.input("step", {1}, DataType::kI32);
    TensorId o2 = two_rows.intermediate("point", {1, 3});
    two_rows.node(OpType::kMixtureSample, "sample", {p2, s2}, {o2}, {{"components", int64_t(m)}});
    CHECK(contains(two_rows.validate().message(), "(one step)"));
  }

  TEST_CASE("AdditiveAttention's key_bias adds one number per key inside the tanh") {
    const size_t a = 6, c = 5, l = 7;
    OpHarness h;
    TensorId q = h.input("query", {1, static_cast<int64_t>(a)});
    TensorId keys = h.input("keys", {kSequenceDim, static_cast<int64_t>(a)});
    TensorId v = h.weight("v", {static_cast<int64_t>(a)}, random_floats(a, -1, 1, 41));
    TensorId values = h.input("values", {kSequenceDim, static_cast<int64_t>(c)});
    TensorId kb = h.input("key_bias", {kSequenceDim, 1});
    TensorId ctx = h.intermediate("context", {1, static_cast<int64_t>(c)});
    TensorId align = h.intermediate("alignment", {1, kSequenceDim});
    h.node(OpType::kAdditiveAttention, "att", {q, keys, v, kNoTensor, values, kb}, {ctx, align});
    Status valid = h.validate();
    REQUIRE_MESSAGE(valid.is_ok(), valid.message());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    const std::vector<float> qs = random_floats(a, -1, 1, 42), ks = random_floats(l * a, -1, 1, 43);
    const std::vector<float> vs = random_floats(l * c, -1, 1, 44),
                             kbs = random_floats(l, -2, 2, 45);
    const std::vector<float> v_values = random_floats(a, -1, 1, 41);
    h.set(q, qs);
    h.set(keys, ks);
    h.set(values, vs);
    h.set(kb, kbs);
    REQUIRE(h.run(**kernel, l).is_ok());
    std::vector<double> e(l);
    for (size_t j = 0; j < l; ++j)
      for (size_t i = 0; i < a; ++i)
        e[j] += double(v_values[i]) * std::tanh(double(qs[i]) + ks[j * a + i] + kbs[j]);
    const double top = *std::max_element(e.begin(), e.end());
    double total = 0;
    for (double& x : e) total += x = std::exp(x - top);
    const std::vector<float> got_align = h.get(align), got_ctx = h.get(ctx);
    for (size_t j = 0; j < l; ++j) CHECK(std::fabs(got_align[j] - e[j] / total) <= 1e-5);
    for (size_t i = 0; i < c; ++i) {
      double ref = 0;
      for (size_t j = 0; j < l; ++j) ref += e[j] / total * vs[j * c + i];
      CHECK(std::fabs(got_ctx[i] - ref) <= 1e-5);
    }
    OpHarness bad;
    TensorId q2 = bad.input("query", {1, 2});
    TensorId k2 = bad.input("keys", {3, 2});
    TensorId v2 = bad.weight("v", {2}, {1, 1});
    TensorId val2 = bad.input("values", {3, 2});
    TensorId kb2 = bad.input("key_bias", {3});
    TensorId c2 = bad.intermediate("context", {1, 2});
    bad.node(OpType::kAdditiveAttention, "att", {q2, k2, v2, kNoTensor, val2, kb2}, {c2});
    CHECK(contains(bad.validate().message(), "key_bias"));
  }
}

}  // namespace normrt::testing
