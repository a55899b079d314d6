// FusedLinear's GELU to bf16 accuracy (activation.h: kGeluErfBf16): chosen
// exactly when every reader of the output rounds it (the x of int8 matmuls,
// or of bf16 matmuls run with x rounded to bf16) and the output is not a
// graph output; the exact GELU otherwise. The kernel choice says which ran,
// and the output stays within that activation's bound of the double
// reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/linear/linear.h"
#include "runtime/graph/int8_weight.h"
#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kK = 24, kN = 40, kOut = 5, kRows = 3;

enum class Reader { kInt8Linear, kF32Linear, kBf16Linear, kInt8AndAdd };

struct Built {
  std::string choice;
  std::vector<float> h;
  std::vector<double> reference, magnitude;  // GELU of x·Wᵀ in double; Σ|w·x|
};

// x → FusedLinear(GELU) → h → the reader(s); h a graph output if `h_escapes`.
Built build_and_run(Reader reader, bool bf16_activations, bool h_escapes) {
  OpHarness harness;
  harness.bf16_activations = bf16_activations;
  const std::vector<float> w = random_floats(kN * kK, -0.4f, 0.4f, 41);
  const std::vector<float> w2 = random_floats(kOut * kN, -0.5f, 0.5f, 42);
  TensorId x = harness.input("x", {kSequenceDim, int64_t{kK}});
  TensorId wt = harness.weight("W", {int64_t{kN}, int64_t{kK}}, w);
  TensorId h = harness.intermediate("h", {kSequenceDim, int64_t{kN}});
  std::vector<Attribute> attributes = activation_attributes(Activation::kGeluErf);
  attributes.push_back({"norm", std::string("none")});
  const size_t fused = harness.node(OpType::kFusedLinear, "up", {x, wt}, {h}, attributes);

  TensorId w2t = kNoTensor;
  if (reader == Reader::kInt8Linear || reader == Reader::kInt8AndAdd) {
    Expected<Tensor> q = make_int8_weight("W2", kOut, kN, w2.data());
    REQUIRE(q.is_ok());
    w2t = harness.weight_tensor(*q);
  } else if (reader == Reader::kBf16Linear) {
    w2t = harness.weight_bf16("W2", {int64_t{kOut}, int64_t{kN}}, to_bf16(w2));
  } else {
    w2t = harness.weight("W2", {int64_t{kOut}, int64_t{kN}}, w2);
  }
  TensorId y = harness.intermediate("y", {kSequenceDim, int64_t{kOut}});
  harness.node(OpType::kLinear, "down", {h, w2t}, {y});
  if (reader == Reader::kInt8AndAdd) {
    TensorId z = harness.intermediate("z", {kSequenceDim, int64_t{kN}});
    harness.node(OpType::kAdd, "add", {h, h}, {z});
  }
  if (!h_escapes) {
    auto& outputs = harness.graph.outputs;
    outputs.erase(std::remove(outputs.begin(), outputs.end(), h), outputs.end());
  }
  Status valid = harness.validate();
  REQUIRE_MESSAGE(valid.is_ok(), valid.message());
  auto kernel = harness.create(fused);
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());

  Built built;
  built.choice = (*kernel)->kernel_choice();
  const std::vector<float> xs = random_floats(kRows * kK, -3.0f, 3.0f, 43);
  harness.set(x, xs);
  Status ran = harness.run(**kernel, kRows, 0, fused);
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  built.h = harness.get(h);
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < kN; ++j) {
      double t = 0, magnitude = 0;
      for (size_t i = 0; i < kK; ++i) {
        t += double(xs[r * kK + i]) * w[j * kK + i];
        magnitude += std::fabs(double(xs[r * kK + i]) * w[j * kK + i]);
      }
      built.reference.push_back(reference_activation(Activation::kGeluErf, t));
      built.magnitude.push_back(magnitude);
    }
  }
  return built;
}

// Elements outside the bound: linear.h's 1e-5·Σ|w·x| for the matmul, grown
// by GELU's slope (≤ 1.13), plus the activation's own relative bound.
size_t outside(const Built& b, Activation activation) {
  size_t bad = 0;
  for (size_t i = 0; i < b.h.size(); ++i) {
    const double bound = 1.13 * 1e-5 * b.magnitude[i] +
                         activation_tolerance(activation) * std::fabs(b.reference[i]) + 1e-30;
    if (!(std::fabs(b.h[i] - b.reference[i]) <= bound) && bad++ < 3) {
      FAIL_CHECK(mismatch(i, b.h[i], b.reference[i], bound));
    }
  }
  return bad;
}

bool says_bf16_gelu(const Built& b) { return b.choice.find("gelu_erf_bf16") != std::string::npos; }

}  // namespace

TEST_SUITE("linear_ops") {
  TEST_CASE("FusedLinear runs gelu_erf_bf16 only when every reader rounds its output") {
    const Built int8_reader = build_and_run(Reader::kInt8Linear, false, false);
    CHECK_MESSAGE(says_bf16_gelu(int8_reader), int8_reader.choice);
    CHECK(outside(int8_reader, Activation::kGeluErfBf16) == 0);

    const Built f32_reader = build_and_run(Reader::kF32Linear, true, false);
    CHECK_FALSE(says_bf16_gelu(f32_reader));
    CHECK(outside(f32_reader, Activation::kGeluErf) == 0);

    const Built escapes = build_and_run(Reader::kInt8Linear, false, true);
    CHECK_FALSE(says_bf16_gelu(escapes));

    const Built also_added = build_and_run(Reader::kInt8AndAdd, false, false);
    CHECK_FALSE(says_bf16_gelu(also_added));

    const Built bf16_exact = build_and_run(Reader::kBf16Linear, false, false);
    CHECK_FALSE(says_bf16_gelu(bf16_exact));

    // bf16 weights with bf16 activations round x only where the CPU has the kernel.
    Expected<Isa> isa = selected_isa();  // what OpHarness::create() uses
    REQUIRE(isa.is_ok());
    Expected<LinearVariantChoice> fast = choose_linear_variant_bf16_activations(*isa);
    REQUIRE(fast.is_ok());
    const Built bf16_fast = build_and_run(Reader::kBf16Linear, true, false);
    CHECK(says_bf16_gelu(bf16_fast) == fast->variant->rounds_x_to_bf16);
    CHECK(outside(bf16_fast, fast->variant->rounds_x_to_bf16 ? Activation::kGeluErfBf16
                                                             : Activation::kGeluErf) == 0);
  }
}

}  // namespace normrt::testing
