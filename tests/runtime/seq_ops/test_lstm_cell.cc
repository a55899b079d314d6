// LstmCell over whole sequences against the double-precision equations
// (rnn_reference.h): every norm kind and placement, both eps placements and
// gain conventions, reverse, given or zero initial state, f32 and bf16
// weights, sequences longer than one projection chunk, every runnable ISA;
// state carried across runs and updated in place.
//
// Tolerance: h (and c) within 1e-4 · max|reference| of the quantity, the
// kernel tests' bound (tests/kernels/test_ln_rnn_support.h explains it: a
// step's GEMV error ~1e-6 of Σ|w·x| grows by ~√K through the norm and is
// carried by the recurrence; measured ≤ 2e-5 at these sizes). A mixed-up
// gate, a missing bias or a wrong normalization range is off by 1e-2 or more.
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

struct LstmSetup {
  NormCase norm;
  const char* placement;  // attribute value, or null: absent
  RefLstmPlacement ref_placement;
};

struct LstmProblem {
  RefLstm ref;
  std::vector<float> raw_w_x, raw_w_h;  // before any bf16 rounding
};

LstmProblem make_problem(const LstmSetup& setup, size_t d, size_t h, DataType dtype,
                         uint32_t seed) {
  LstmProblem p;
  RefLstm& r = p.ref;
  r.d = d;
  r.h = h;
  r.placement = setup.ref_placement;
  r.norm = setup.norm.convention;
  const size_t g = 4 * h;
  const float ax = std::sqrt(3.0f / d), ah = std::sqrt(3.0f / h);
  p.raw_w_x = uniform_floats(g * d, -ax, ax, seed + 1);
  p.raw_w_h = uniform_floats(g * h, -ah, ah, seed + 2);
  r.w_x = as_stored(p.raw_w_x, dtype);
  r.w_h = as_stored(p.raw_w_h, dtype);
  r.b = uniform_floats(g, -0.5f, 0.5f, seed + 3);
  const bool projections = setup.ref_placement == RefLstmPlacement::kProjectionsAndCell;
  const bool cell = setup.ref_placement != RefLstmPlacement::kNone;
  if (projections) {
    r.gain_h = gains(g, r.norm, seed + 4);
    r.gain_x = gains(g, r.norm, seed + 5);
  }
  r.bias_h = uniform_floats(g, -0.3f, 0.3f, seed + 6);  // plain biases when not normalized
  r.bias_x = uniform_floats(g, -0.3f, 0.3f, seed + 7);
  if (cell) {
    r.gain_c = gains(h, r.norm, seed + 8);
    r.bias_c = uniform_floats(h, -0.3f, 0.3f, seed + 9);
  }
  return p;
}

// The node: x [S, D], h0/c0 state inputs (or absent), the weights, and
// outputs h_seq [S, H], h_last, c_last.
OneNodeHarness lstm_node(const LstmSetup& setup, const LstmProblem& p, DataType dtype,
                         bool with_state, bool reverse, int64_t max_s) {
  const RefLstm& r = p.ref;
  const int64_t d = r.d, h = r.h, g = 4 * h;
  OneNodeHarness n(OpType::kLstmCell, "enc.lstm_bw", max_s);
  n.input("x", {kSequenceDim, d});
  if (with_state) {
    n.input("h_state", {1, h}, TensorKind::kState);
    n.input("c_state", {1, h}, TensorKind::kState);
  } else {
    n.absent_input();
    n.absent_input();
  }
  n.weight("w_x", {g, d}, p.raw_w_x, dtype);
  n.weight("w_h", {g, h}, p.raw_w_h, dtype);
  add_optional_weight(n, "b", {g}, r.b);
  add_optional_weight(n, "gain_h", {g}, r.gain_h);
  add_optional_weight(n, "bias_h", {g}, r.bias_h);
  add_optional_weight(n, "gain_x", {g}, r.gain_x);
  add_optional_weight(n, "bias_x", {g}, r.bias_x);
  add_optional_weight(n, "gain_c", {h}, r.gain_c);
  add_optional_weight(n, "bias_c", {h}, r.bias_c);
  n.output("h_seq", {kSequenceDim, h});
  n.output("h_last", {1, h});
  n.output("c_last", {1, h});
  set_norm_attributes(n, setup.norm);
  if (setup.placement != nullptr) n.attribute("placement", std::string(setup.placement));
  if (reverse) n.attribute("reverse", int64_t{1});
  return n;
}

const LstmSetup kSetups[] = {
    {kNormCases[0], nullptr, RefLstmPlacement::kProjectionsAndCell},  // layer_norm, default
    {kNormCases[1], "projections_and_cell", RefLstmPlacement::kProjectionsAndCell},
    {kNormCases[2], "projections_and_cell", RefLstmPlacement::kProjectionsAndCell},
    {kNormCases[3], "projections_and_cell", RefLstmPlacement::kProjectionsAndCell},
    {kNormCases[0], "cell_only", RefLstmPlacement::kCellOnly},
    {kNormCases[2], "cell_only", RefLstmPlacement::kCellOnly},
    {kNormCases[4], nullptr, RefLstmPlacement::kNone},
    {kNormCases[4], "none", RefLstmPlacement::kNone},
};

TEST_SUITE("seq_ops") {
  TEST_CASE("lstm_cell: sequences match eqs. 20-22 for every norm, placement and direction") {
    struct Size {
      size_t d, h, steps;
    };
    // 70 steps: two projection chunks (64 + 6), entered from either end.
    const Size sizes[] = {{7, 5, 9}, {13, 9, 70}, {3, 2, 1}};
    double worst = 0.0;
    for (Isa isa : runnable_isas()) {
      for (const LstmSetup& setup : kSetups) {
        for (const Size& size : sizes) {
          for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
            for (bool reverse : {false, true}) {
              for (bool with_state : {false, true}) {
                CAPTURE(isa_name(isa));
                CAPTURE(setup.norm.label);
                CAPTURE(setup.placement);
                CAPTURE(size.h);
                CAPTURE(size.steps);
                CAPTURE(data_type_name(dtype));
                CAPTURE(reverse);
                CAPTURE(with_state);
                const LstmProblem p = make_problem(setup, size.d, size.h, dtype, 100);
                OneNodeHarness n = lstm_node(setup, p, dtype, with_state, reverse, 80);
                Status created = n.create(isa);
                REQUIRE_MESSAGE(created.is_ok(), created.message());
                std::vector<float> x = uniform_floats(size.steps * size.d, -1.0f, 1.0f, 7);
                std::vector<float> h0, c0;
                if (with_state) {
                  h0 = uniform_floats(size.h, -0.5f, 0.5f, 8);
                  c0 = uniform_floats(size.h, -1.0f, 1.0f, 9);
                }
                std::vector<float> h_seq(size.steps * size.h, NAN), h_last(size.h, NAN),
                    c_last(size.h, NAN);
                Status ran =
                    n.run({&x, with_state ? &h0 : nullptr, with_state ? &c0 : nullptr, nullptr,
                           nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr},
                          {&h_seq, &h_last, &c_last}, size.steps);
                REQUIRE_MESSAGE(ran.is_ok(), ran.message());
                const RefSequence ref = reference_lstm(p.ref, x, size.steps, h0, c0, reverse);
                double ratio = 0.0;
                std::string failure =
                    compare_scaled("h_seq", h_seq, ref.h_seq, size.h, kTolerance, &ratio);
                if (failure.empty()) {
                  failure = compare_scaled("h_last", h_last, ref.h_last, size.h, kTolerance);
                }
                if (failure.empty()) {
                  failure = compare_scaled("c_last", c_last, ref.c_last, size.h, kTolerance);
                }
                CHECK_MESSAGE(failure == "", failure);
                worst = std::max(worst, ratio);
              }
            }
          }
        }
      }
    }
    MESSAGE("lstm_cell: worst h_seq error " << worst * kTolerance << " of max|h|");
  }

  TEST_CASE("lstm_cell: state carried across runs, updated in place, equals one long run") {
    const LstmSetup& setup = kSetups[1];
    const LstmProblem p = make_problem(setup, 6, 4, DataType::kF32, 300);
    OneNodeHarness n = lstm_node(setup, p, DataType::kF32, true, false, 8);
    REQUIRE(n.create(selected_isa().value()).is_ok());
    const size_t steps = 11, h = 4;
    const std::vector<float> x = uniform_floats(steps * 6, -1.0f, 1.0f, 17);
    // h_last and c_last are the very buffers of h0 and c0, as an executor
    // may place a state and its update.
    std::vector<float> state_h(h, 0.0f), state_c(h, 0.0f), h_all;
    for (size_t first = 0; first < steps;) {
      const size_t s = std::min<size_t>(first == 0 ? 5 : 1, steps - first);
      std::vector<float> x_run(x.begin() + first * 6, x.begin() + (first + s) * 6);
      std::vector<float> h_seq(s * h);
      Status ran = n.run({&x_run, &state_h, &state_c, nullptr, nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr, nullptr, nullptr},
                         {&h_seq, &state_h, &state_c}, s);
      REQUIRE_MESSAGE(ran.is_ok(), ran.message());
      h_all.insert(h_all.end(), h_seq.begin(), h_seq.end());
      first += s;
    }
    const RefSequence ref = reference_lstm(p.ref, x, steps, {}, {}, false);
    std::string failure = compare_scaled("h_seq", h_all, ref.h_seq, h, kTolerance);
    if (failure.empty()) failure = compare_scaled("h state", state_h, ref.h_last, h, kTolerance);
    if (failure.empty()) failure = compare_scaled("c state", state_c, ref.c_last, h, kTolerance);
    CHECK_MESSAGE(failure == "", failure);
  }

  TEST_CASE("lstm_cell: optional outputs may be absent") {
    const LstmSetup& setup = kSetups[0];
    const LstmProblem p = make_problem(setup, 5, 3, DataType::kF32, 400);
    OneNodeHarness n = lstm_node(setup, p, DataType::kF32, false, true, 4);
    n.node().outputs.resize(1);  // h_seq only
    REQUIRE(n.create(selected_isa().value()).is_ok());
    std::vector<float> x = uniform_floats(4 * 5, -1.0f, 1.0f, 3), h_seq(4 * 3);
    REQUIRE(n.run({&x, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                   nullptr, nullptr, nullptr},
                  {&h_seq}, 4)
                .is_ok());
    const RefSequence ref = reference_lstm(p.ref, x, 4, {}, {}, true);
    const std::string failure = compare_scaled("h_seq", h_seq, ref.h_seq, 3, kTolerance);
    CHECK_MESSAGE(failure == "", failure);
  }
}

}  // namespace
}  // namespace normrt::testing
