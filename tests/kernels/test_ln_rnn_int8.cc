// LN-LSTM and LN-GRU cells with int8 weights: they go through fused_linear,
// so an int8 cell must compute what an f32 cell computes over the
// dequantized weights (q·sw per output channel, exact in float) fed with
// inputs that quantize exactly. So both cells get the same state, snapped
// each step to its quantized value (sx·(q − z): what the int8 GEMV sees of it),
// the same projected inputs, and their steps must agree within the f32
// cell's own tolerance (tests/kernels/test_ln_rnn_support.h: the GEMV's float
// rounding is the only difference). The input projections (m = T GEMMs over
// snapped x rows) are compared the same way.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kernels/linear/linear_int8.h"
#include "tests/kernels/test_ln_rnn_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kIntSteps = 6;

// Each row of weights (rows, cols) replaced by its int8 quantization,
// dequantized (q·sw).
std::vector<float> snapped(const std::vector<float>& v, size_t rows, size_t cols) {
  std::vector<float> out(v.size());
  std::vector<int8_t> q(cols);
  for (size_t r = 0; r < rows; ++r) {
    const float scale = quantize_int8(&v[r * cols], cols, q.data());
    for (size_t i = 0; i < cols; ++i) out[r * cols + i] = q[i] * scale;
  }
  return out;
}

// The same for rows of activations: sx·(q − z), which quantize back to the
// same q and z (|q − z| ≤ 254: the float roundings cannot move them).
std::vector<float> snapped_activations(const std::vector<float>& v, size_t rows, size_t cols) {
  std::vector<float> out(v.size());
  std::vector<int8_t> q(cols);
  for (size_t r = 0; r < rows; ++r) {
    const Int8Activations a = quantize_int8_activations(&v[r * cols], cols, q.data());
    for (size_t i = 0; i < cols; ++i)
      out[r * cols + i] = static_cast<float>(q[i] - a.zero_point) * a.scale;
  }
  return out;
}

std::vector<double> as_double(const std::vector<float>& v) {
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace

TEST_SUITE("ln_rnn") {
  TEST_CASE("int8 ln_lstm cells step as f32 cells over the dequantized weights, on every ISA") {
    size_t runs = 0;
    double worst = 0.0;
    for (Isa isa : runnable_isas()) {
      for (RnnNormCase nc :
           {RnnNormCase::kLayerNorm, RnnNormCase::kRmsNorm, RnnNormCase::kPartialRmsNorm,
            RnnNormCase::kNone, RnnNormCase::kDraw}) {
        for (auto [d, h] : {std::pair<size_t, size_t>{3, 9}, {64, 37}, {100, 130}}) {
          const std::string label = std::string(isa_name(isa)) + " " + rnn_norm_case_name(nc) +
                                    " d=" + std::to_string(d) + " h=" + std::to_string(h);
          CAPTURE(label);
          const LstmProblem p =
              make_lstm_problem(d, h, kIntSteps, WeightType::kF32, nc, static_cast<int>(runs % 2),
                                static_cast<uint32_t>(d * 31 + h));
          LstmProblem dq = p;
          dq.w_x = snapped(p.w_x, 4 * h, d);
          dq.w_h = snapped(p.w_h, 4 * h, h);
          Expected<LnLstmCell> cell8 = make_ln_lstm_cell(p.weights(), WeightType::kInt8, isa);
          Expected<LnLstmCell> cellf = make_ln_lstm_cell(dq.weights(), WeightType::kF32, isa);
          REQUIRE_MESSAGE(cell8, cell8.status().message());
          REQUIRE_MESSAGE(cellf, cellf.status().message());
          CHECK(cell8->weight_type() == WeightType::kInt8);
          LnLstmWorkspace ws8(*cell8), wsf(*cellf);
          const std::vector<float> x = snapped_activations(p.x, kIntSteps, d);
          std::vector<float> xproj8(kIntSteps * 4 * h), xprojf(kIntSteps * 4 * h);
          REQUIRE(ln_lstm_project_inputs(*cell8, x.data(), kIntSteps, xproj8.data()));
          REQUIRE(ln_lstm_project_inputs(*cellf, x.data(), kIntSteps, xprojf.data()));
          std::string failure =
              compare_sequence("xproj", xproj8, as_double(xprojf), kIntSteps, 4 * h, &worst);
          CHECK_MESSAGE(failure.empty(), failure);
          // Steps from the same snapped state; the int8 cell's state carries on.
          std::vector<float> state_h = p.h0, state_c = p.c0, h8(h), c8(h), hf(h), cf(h);
          std::vector<float> all_h8, all_c8, all_hf, all_cf;
          for (size_t t = 0; t < kIntSteps; ++t) {
            const std::vector<float> h_prev = snapped_activations(state_h, 1, h);
            const float* xp = xprojf.data() + t * 4 * h;
            REQUIRE(
                ln_lstm_step(*cell8, xp, h_prev.data(), state_c.data(), h8.data(), c8.data(), ws8));
            REQUIRE(
                ln_lstm_step(*cellf, xp, h_prev.data(), state_c.data(), hf.data(), cf.data(), wsf));
            all_h8.insert(all_h8.end(), h8.begin(), h8.end());
            all_c8.insert(all_c8.end(), c8.begin(), c8.end());
            all_hf.insert(all_hf.end(), hf.begin(), hf.end());
            all_cf.insert(all_cf.end(), cf.begin(), cf.end());
            state_h = h8;
            state_c = c8;
          }
          failure = compare_sequence("h", all_h8, as_double(all_hf), kIntSteps, h, &worst);
          if (failure.empty()) {
            failure = compare_sequence("c", all_c8, as_double(all_cf), kIntSteps, h, &worst);
          }
          CHECK_MESSAGE(failure.empty(), failure);
          ++runs;
        }
      }
    }
    MESSAGE("int8 ln_lstm: " << runs << " cells; worst |int8 - f32| / max|f32| " << worst);
  }

  TEST_CASE("int8 ln_gru cells step as f32 cells over the dequantized weights, on every ISA") {
    size_t runs = 0;
    double worst = 0.0;
    for (Isa isa : runnable_isas()) {
      for (RnnNormCase nc : {RnnNormCase::kLayerNorm, RnnNormCase::kRmsNorm,
                             RnnNormCase::kPartialRmsNorm, RnnNormCase::kNone}) {
        for (auto [d, h] : {std::pair<size_t, size_t>{3, 9}, {64, 37}, {100, 130}}) {
          const std::string label = std::string(isa_name(isa)) + " " + rnn_norm_case_name(nc) +
                                    " d=" + std::to_string(d) + " h=" + std::to_string(h);
          CAPTURE(label);
          const GruProblem p =
              make_gru_problem(d, h, kIntSteps, WeightType::kF32, nc, static_cast<int>(runs % 2),
                               static_cast<uint32_t>(d * 37 + h));
          GruProblem dq = p;
          dq.w_x = snapped(p.w_x, 2 * h, d);
          dq.w_h = snapped(p.w_h, 2 * h, h);
          dq.w = snapped(p.w, h, d);
          dq.u = snapped(p.u, h, h);
          Expected<LnGruCell> cell8 = make_ln_gru_cell(p.weights(), WeightType::kInt8, isa);
          Expected<LnGruCell> cellf = make_ln_gru_cell(dq.weights(), WeightType::kF32, isa);
          REQUIRE_MESSAGE(cell8, cell8.status().message());
          REQUIRE_MESSAGE(cellf, cellf.status().message());
          LnGruWorkspace ws8(*cell8), wsf(*cellf);
          const std::vector<float> x = snapped_activations(p.x, kIntSteps, d);
          std::vector<float> xproj8(kIntSteps * 3 * h), xprojf(kIntSteps * 3 * h);
          REQUIRE(ln_gru_project_inputs(*cell8, x.data(), kIntSteps, xproj8.data()));
          REQUIRE(ln_gru_project_inputs(*cellf, x.data(), kIntSteps, xprojf.data()));
          std::string failure =
              compare_sequence("xproj", xproj8, as_double(xprojf), kIntSteps, 3 * h, &worst);
          CHECK_MESSAGE(failure.empty(), failure);
          std::vector<float> state = p.h0, h8(h), hf(h), all_h8, all_hf;
          for (size_t t = 0; t < kIntSteps; ++t) {
            // The GRU also uses h_prev outside the GEMVs: both get the snapped one.
            const std::vector<float> h_prev = snapped_activations(state, 1, h);
            const float* xp = xprojf.data() + t * 3 * h;
            REQUIRE(ln_gru_step(*cell8, xp, h_prev.data(), h8.data(), ws8));
            REQUIRE(ln_gru_step(*cellf, xp, h_prev.data(), hf.data(), wsf));
            all_h8.insert(all_h8.end(), h8.begin(), h8.end());
            all_hf.insert(all_hf.end(), hf.begin(), hf.end());
            state = h8;
          }
          failure = compare_sequence("h", all_h8, as_double(all_hf), kIntSteps, h, &worst);
          CHECK_MESSAGE(failure.empty(), failure);
          ++runs;
        }
      }
    }
    MESSAGE("int8 ln_gru: " << runs << " cells; worst |int8 - f32| / max|f32| " << worst);
  }
}

}  // namespace normrt::testing
