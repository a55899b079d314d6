// GruCellBa over whole sequences against the double-precision equations
// (rnn_reference.h): every norm kind and the plain GRU, both conventions,
// reverse, given or zero initial state, f32 and bf16 weights, more steps
// than one projection chunk, every runnable ISA; state carried in place.
// Tolerance: 1e-4 · max|h|, as test_lstm_cell.cc explains.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/rnn_reference.h"
#include "tests/runtime/seq_ops/rnn_test_cases.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

constexpr double kTolerance = 1e-4;

struct GruProblem {
  RefGru ref;
  std::vector<float> raw_w_x, raw_w_h, raw_w, raw_u;  // before any bf16 rounding
};

GruProblem make_problem(const NormCase& norm, size_t d, size_t h, DataType dtype, uint32_t seed) {
  GruProblem p;
  RefGru& r = p.ref;
  r.d = d;
  r.h = h;
  r.normalized = norm.convention.kind != RefNorm::kNone;
  r.norm = norm.convention;
  const float ax = std::sqrt(3.0f / d), ah = std::sqrt(3.0f / h);
  p.raw_w_x = uniform_floats(2 * h * d, -ax, ax, seed + 1);
  p.raw_w_h = uniform_floats(2 * h * h, -ah, ah, seed + 2);
  p.raw_w = uniform_floats(h * d, -ax, ax, seed + 3);
  p.raw_u = uniform_floats(h * h, -ah, ah, seed + 4);
  r.w_x = as_stored(p.raw_w_x, dtype);
  r.w_h = as_stored(p.raw_w_h, dtype);
  r.w = as_stored(p.raw_w, dtype);
  r.u = as_stored(p.raw_u, dtype);
  if (r.normalized) {
    r.gain_h = gains(2 * h, r.norm, seed + 5);
    r.gain_x = gains(2 * h, r.norm, seed + 6);
    r.gain_w = gains(h, r.norm, seed + 7);
    r.gain_u = gains(h, r.norm, seed + 8);
  }
  // β's: the norm's shift, or plain biases of the plain GRU.
  r.bias_h = uniform_floats(2 * h, -0.3f, 0.3f, seed + 9);
  r.bias_x = uniform_floats(2 * h, -0.3f, 0.3f, seed + 10);
  r.bias_w = uniform_floats(h, -0.3f, 0.3f, seed + 11);
  r.bias_u = uniform_floats(h, -0.3f, 0.3f, seed + 12);
  return p;
}

OneNodeHarness gru_node(const NormCase& norm, const GruProblem& p, DataType dtype, bool with_state,
                        bool reverse, int64_t max_s) {
  const RefGru& r = p.ref;
  const int64_t d = r.d, h = r.h;
  OneNodeHarness n(OpType::kGruCellBa, "enc.gru_fw", max_s);
  n.input("x", {kSequenceDim, d});
  if (with_state) {
    n.input("h_state", {1, h}, TensorKind::kState);
  } else {
    n.absent_input();
  }
  n.weight("w_x", {2 * h, d}, p.raw_w_x, dtype);
  n.weight("w_h", {2 * h, h}, p.raw_w_h, dtype);
  n.weight("w", {h, d}, p.raw_w, dtype);
  n.weight("u", {h, h}, p.raw_u, dtype);
  add_optional_weight(n, "gain_h", {2 * h}, r.gain_h);
  add_optional_weight(n, "bias_h", {2 * h}, r.bias_h);
  add_optional_weight(n, "gain_x", {2 * h}, r.gain_x);
  add_optional_weight(n, "bias_x", {2 * h}, r.bias_x);
  add_optional_weight(n, "gain_w", {h}, r.gain_w);
  add_optional_weight(n, "bias_w", {h}, r.bias_w);
  add_optional_weight(n, "gain_u", {h}, r.gain_u);
  add_optional_weight(n, "bias_u", {h}, r.bias_u);
  n.output("h_seq", {kSequenceDim, h});
  n.output("h_last", {1, h});
  set_norm_attributes(n, norm);
  if (reverse) n.attribute("reverse", int64_t{1});
  return n;
}

std::vector<std::vector<float>*> gru_inputs(std::vector<float>* x, std::vector<float>* h0) {
  std::vector<std::vector<float>*> inputs(14, nullptr);
  inputs[0] = x;
  inputs[1] = h0;
  return inputs;
}

TEST_SUITE("seq_ops") {
  TEST_CASE("gru_cell: sequences match eqs. 26-28 for every norm and direction") {
    struct Size {
      size_t d, h, steps;
    };
    const Size sizes[] = {{7, 5, 9}, {13, 9, 70}, {2, 3, 1}};
    double worst = 0.0;
    for (Isa isa : runnable_isas()) {
      for (const NormCase& norm : kNormCases) {
        for (const Size& size : sizes) {
          for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
            for (bool reverse : {false, true}) {
              for (bool with_state : {false, true}) {
                CAPTURE(isa_name(isa));
                CAPTURE(norm.label);
                CAPTURE(size.h);
                CAPTURE(size.steps);
                CAPTURE(data_type_name(dtype));
                CAPTURE(reverse);
                CAPTURE(with_state);
                const GruProblem p = make_problem(norm, size.d, size.h, dtype, 500);
                OneNodeHarness n = gru_node(norm, p, dtype, with_state, reverse, 80);
                Status created = n.create(isa);
                REQUIRE_MESSAGE(created.is_ok(), created.message());
                std::vector<float> x = uniform_floats(size.steps * size.d, -1.0f, 1.0f, 27);
                std::vector<float> h0;
                if (with_state) h0 = uniform_floats(size.h, -0.8f, 0.8f, 28);
                std::vector<float> h_seq(size.steps * size.h, NAN), h_last(size.h, NAN);
                Status ran = n.run(gru_inputs(&x, with_state ? &h0 : nullptr), {&h_seq, &h_last},
                                   size.steps);
                REQUIRE_MESSAGE(ran.is_ok(), ran.message());
                const RefSequence ref = reference_gru(p.ref, x, size.steps, h0, reverse);
                double ratio = 0.0;
                std::string failure =
                    compare_scaled("h_seq", h_seq, ref.h_seq, size.h, kTolerance, &ratio);
                if (failure.empty()) {
                  failure = compare_scaled("h_last", h_last, ref.h_last, size.h, kTolerance);
                }
                CHECK_MESSAGE(failure == "", failure);
                worst = std::max(worst, ratio);
              }
            }
          }
        }
      }
    }
    MESSAGE("gru_cell: worst h_seq error " << worst * kTolerance << " of max|h|");
  }

  TEST_CASE("gru_cell: state carried across runs in place equals one long run") {
    const NormCase& norm = kNormCases[1];
    const GruProblem p = make_problem(norm, 4, 6, DataType::kF32, 600);
    OneNodeHarness n = gru_node(norm, p, DataType::kF32, true, false, 8);
    REQUIRE(n.create(selected_isa().value()).is_ok());
    const size_t steps = 9, h = 6;
    const std::vector<float> x = uniform_floats(steps * 4, -1.0f, 1.0f, 37);
    std::vector<float> state(h, 0.0f), h_all;
    for (size_t first = 0; first < steps;) {
      const size_t s = std::min<size_t>(first == 0 ? 4 : 1, steps - first);
      std::vector<float> x_run(x.begin() + first * 4, x.begin() + (first + s) * 4);
      std::vector<float> h_seq(s * h);
      Status ran = n.run(gru_inputs(&x_run, &state), {&h_seq, &state}, s);
      REQUIRE_MESSAGE(ran.is_ok(), ran.message());
      h_all.insert(h_all.end(), h_seq.begin(), h_seq.end());
      first += s;
    }
    const RefSequence ref = reference_gru(p.ref, x, steps, {}, false);
    std::string failure = compare_scaled("h_seq", h_all, ref.h_seq, h, kTolerance);
    if (failure.empty()) failure = compare_scaled("h state", state, ref.h_last, h, kTolerance);
    CHECK_MESSAGE(failure == "", failure);
  }
}

}  // namespace
}  // namespace normrt::testing
