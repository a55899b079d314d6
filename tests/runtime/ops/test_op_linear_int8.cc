// Linear and FusedLinear with int8 weights (runtime/graph/int8_weight.h),
// row-major and packed for every panel width: against the test's own int8
// arithmetic (x quantized per row by the formula, exact integer sums, the
// scales' product in double), odd K and N, every ISA. And the kernel choice
// each op reports.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/graph/int8_weight.h"
#include "runtime/passes/prepack_linear_weights.h"
#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

// One row of x by linear_int8.h's activation formula, written out here: the
// scale, and q − z (the zero point taken off) in `q`.
float quantize_row(const float* v, size_t count, std::vector<int>& q) {
  float lo = 0, hi = 0;
  for (size_t i = 0; i < count; ++i) {
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  q.assign(count, 0);
  const double range = double{hi} - double{lo};
  if (range < 254.0 * 1.17549435e-38) return 0.0f;
  const float inverse = static_cast<float>(254.0 / range);
  const int zero = std::clamp(-127 - static_cast<int>(std::nearbyint(lo * inverse)), -127, 127);
  for (size_t i = 0; i < count; ++i) {
    q[i] = std::clamp(static_cast<int>(std::nearbyint(v[i] * inverse)) + zero, -127, 127) - zero;
  }
  return static_cast<float>(range / 254.0);
}

void check_int8_linear(size_t k, size_t n, TensorLayout layout, Isa isa) {
  INFO("K " << k << " N " << n << " layout " << tensor_layout_name(layout) << " isa "
            << isa_name(isa));
  OpHarness h;
  const size_t sequence = 3;
  const std::vector<float> w = random_floats(n * k, -1, 1, 31);
  const std::vector<float> bias = random_floats(n, -1, 1, 32);
  TensorId x = h.input("x", {kSequenceDim, static_cast<int64_t>(k)});
  Expected<Tensor> wq = make_int8_weight("W", n, k, w.data());
  REQUIRE(wq.is_ok());
  TensorId wt = h.weight_tensor(*wq);
  TensorId bt = h.weight("b", {static_cast<int64_t>(n)}, bias);
  TensorId y = h.intermediate("y", {kSequenceDim, static_cast<int64_t>(n)});
  h.node(OpType::kLinear, "fc", {x, wt, bt}, {y});
  if (layout != TensorLayout::kRowMajor) {
    Expected<size_t> packed = prepack_linear_weights(h.graph, layout);
    REQUIRE(packed.is_ok());
    REQUIRE(*packed == 1);
  }
  REQUIRE(h.validate().is_ok());
  auto kernel = h.create(isa);
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());
  CHECK((*kernel)->kernel_choice().find("int8_gemv__") != std::string::npos);

  std::vector<float> xs = random_floats(sequence * k, -1, 1, 33);
  xs[0] = 4.0f;  // an outlier: the row's scale follows it
  h.set(x, xs);
  REQUIRE(h.run(**kernel, sequence).is_ok());
  const std::vector<float> ys = h.get(y);

  std::vector<int8_t> qw(n * k);
  std::vector<float> sw(n);
  REQUIRE(int8_weight_unpack(h.graph.tensors[wt], qw.data(), sw.data()).is_ok());
  size_t failures = 0;
  for (size_t row = 0; row < sequence; ++row) {
    std::vector<int> qx;
    const float sx = quantize_row(&xs[row * k], k, qx);
    for (size_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (size_t i = 0; i < k; ++i) acc += int64_t{qx[i]} * qw[j * k + i];
      const double product = double(acc) * double(sx) * double(sw[j]);
      const double expected = product + bias[j];
      // linear_int8.h: 2·2⁻²⁴·|acc·sx·sw| + 2⁻²⁴·|y|.
      const double tolerance = 0x1p-23 * std::fabs(product) + 0x1p-24 * std::fabs(expected) + 1e-30;
      const double got = ys[row * n + j];
      if (!(std::fabs(got - expected) <= tolerance) && failures++ < 5) {
        FAIL_CHECK(mismatch(row * n + j, got, expected, tolerance));
      }
    }
  }
  CHECK(failures == 0);
}

}  // namespace

TEST_SUITE("linear_ops") {
  TEST_CASE("int8 Linear equals the exact int8 arithmetic: odd K and N, every layout and ISA") {
    for (Isa isa : runnable_isas()) {
      for (auto [k, n] :
           {std::pair<size_t, size_t>{1, 1}, {3, 17}, {17, 3}, {257, 33}, {130, 65}}) {
        for (TensorLayout layout : {TensorLayout::kRowMajor, TensorLayout::kPanels16,
                                    TensorLayout::kPanels32, TensorLayout::kPanels64}) {
          check_int8_linear(k, n, layout, isa);
        }
      }
    }
  }

  TEST_CASE("an int8 W with a damaged scale is refused by name, not run") {
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, 4});
    const std::vector<float> w(8, 0.5f);
    Expected<Tensor> made = make_int8_weight("W", 2, 4, w.data());
    REQUIRE(made.is_ok());
    Tensor bad = *made;
    auto bytes =
        std::make_shared<std::vector<std::byte>>(bad.data.bytes, bad.data.bytes + bad.data.size);
    const float nan = std::nanf("");
    std::memcpy(bytes->data() + int8_scales_offset(2, 4), &nan, 4);
    bad.data = {bytes->data(), bytes->size(), bytes};
    TensorId wt = h.weight_tensor(bad);
    TensorId y = h.intermediate("y", {kSequenceDim, 2});
    h.node(OpType::kLinear, "fc", {x, wt}, {y});
    auto kernel = h.create(Isa::kScalar);
    REQUIRE_FALSE(kernel.is_ok());
    CHECK(kernel.status().message().find("'fc'") != std::string::npos);
    CHECK(kernel.status().message().find("scale") != std::string::npos);
  }
}

}  // namespace normrt::testing
