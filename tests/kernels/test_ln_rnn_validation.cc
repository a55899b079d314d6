// Invalid cells and invalid step arguments are rejected with a message that
// names the offending field; the allowed in-place forms are accepted.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "tests/kernels/test_ln_rnn_support.h"

namespace normrt::testing {
namespace {

bool mentions(const Status& s, const std::string& word) {
  return !s && s.message().find(word) != std::string::npos;
}

template <class T>
Status status_of(const Expected<T>& e) {
  return e.status();
}

constexpr size_t kD = 5, kH = 16;

}  // namespace

TEST_SUITE("ln_rnn") {
  TEST_CASE("make_ln_lstm_cell rejects bad shapes, pointers, gains and norm parameters") {
    const LstmProblem p =
        make_lstm_problem(kD, kH, 1, WeightType::kF32, RnnNormCase::kLayerNorm, 0, 1);
    const Isa isa = Isa::kScalar;
    auto make = [&](auto edit) {
      LnLstmWeights w = p.weights();
      edit(w);
      return status_of(make_ln_lstm_cell(w, WeightType::kF32, isa));
    };
    CHECK(make([](LnLstmWeights&) {}));
    CHECK(mentions(make([](LnLstmWeights& w) { w.input_size = 0; }), "input_size"));
    CHECK(mentions(make([](LnLstmWeights& w) { w.hidden_size = 0; }), "hidden_size"));
    CHECK(mentions(make([](LnLstmWeights& w) { w.w_x = nullptr; }), "w_x"));
    CHECK(mentions(make([](LnLstmWeights& w) { w.w_h = nullptr; }), "w_h"));
    CHECK(mentions(make([](LnLstmWeights& w) { w.placement = static_cast<LstmNormPlacement>(9); }),
                   "placement"));
    // A gain without its normalization; c_t's bias without c_t's normalization.
    CHECK(mentions(make([](LnLstmWeights& w) { w.placement = LstmNormPlacement::kCellOnly; }),
                   "gain_h"));
    CHECK(mentions(make([](LnLstmWeights& w) {
                     w.placement = LstmNormPlacement::kNone;
                     w.gain_h = w.gain_x = w.gain_c = nullptr;
                   }),
                   "bias_c"));
    CHECK(make([](LnLstmWeights& w) {  // plain LSTM with projection biases β1, β2 and b
      w.placement = LstmNormPlacement::kNone;
      w.gain_h = w.gain_x = w.gain_c = w.bias_c = nullptr;
    }));
    // The norm's own checks, naming which N.
    Status eps = make([](LnLstmWeights& w) { w.norm.eps = -1.0f; });
    CHECK(mentions(eps, "eps"));
    CHECK(mentions(eps, "W_h"));
    Status prms = make([](LnLstmWeights& w) {
      w.norm.kind = NormKind::kPRmsNorm;
      w.norm.p = 0.05;  // floor(0.05·16) = 0 for c_t, 3 for 4H = 64
    });
    CHECK(mentions(prms, "floor"));
    CHECK(mentions(prms, "c_t"));
    CHECK(mentions(make([](LnLstmWeights& w) {
                     w.norm.gain_convention = GainConvention::kOnePlus;
                     w.gain_c = nullptr;
                   }),
                   "gain"));
    for (Isa other : kAllIsas) {
      if (isa_runnable(other)) continue;
      CAPTURE(isa_name(other));
      CHECK(!make_ln_lstm_cell(p.weights(), WeightType::kF32, other));
    }
  }

  TEST_CASE("make_ln_gru_cell rejects bad shapes, pointers, gains and norm parameters") {
    const GruProblem p = make_gru_problem(kD, kH, 1, WeightType::kF32, RnnNormCase::kRmsNorm, 0, 2);
    auto make = [&](auto edit) {
      LnGruWeights w = p.weights();
      edit(w);
      return status_of(make_ln_gru_cell(w, WeightType::kBF16, Isa::kScalar));
    };
    CHECK(make([](LnGruWeights&) {}));
    CHECK(mentions(make([](LnGruWeights& w) { w.input_size = 0; }), "input_size"));
    CHECK(mentions(make([](LnGruWeights& w) { w.hidden_size = 0; }), "hidden_size"));
    CHECK(mentions(make([](LnGruWeights& w) { w.w_x = nullptr; }), "w_x"));
    CHECK(mentions(make([](LnGruWeights& w) { w.w_h = nullptr; }), "w_h"));
    CHECK(mentions(make([](LnGruWeights& w) { w.w = nullptr; }), "w (H x D)"));
    CHECK(mentions(make([](LnGruWeights& w) { w.u = nullptr; }), "u (H x H)"));
    CHECK(mentions(make([](LnGruWeights& w) { w.normalize = false; }), "gain_h"));
    CHECK(make([](LnGruWeights& w) {  // plain GRU, β's as biases
      w.normalize = false;
      w.gain_h = w.gain_x = w.gain_w = w.gain_u = nullptr;
    }));
    Status prms = make([](LnGruWeights& w) {
      w.norm.kind = NormKind::kPRmsNorm;
      w.norm.p = 0.05;  // floor(0.05·16) = 0 for W·x, 1 for 2H
    });
    CHECK(mentions(prms, "floor"));
    CHECK(mentions(prms, "W·x_t"));
  }

  TEST_CASE("ln_lstm_step and ln_lstm_sequence reject null, overlapping and mis-sized operands") {
    const LstmProblem p =
        make_lstm_problem(kD, kH, 3, WeightType::kF32, RnnNormCase::kLayerNorm, 0, 3);
    Expected<LnLstmCell> cell = make_ln_lstm_cell(p.weights(), WeightType::kF32, Isa::kScalar);
    REQUIRE(cell);
    LnLstmWorkspace ws(*cell);
    std::vector<float> xproj(4 * kH, 0.1f), buf(8 * kH, 0.2f);
    float* h_prev = buf.data();
    float* c_prev = buf.data() + kH;
    float* h = buf.data() + 2 * kH;
    float* c = buf.data() + 3 * kH;
    CHECK(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h, c, ws));
    CHECK(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h_prev, c_prev, ws));  // in place
    CHECK(mentions(ln_lstm_step(LnLstmCell{}, xproj.data(), h_prev, c_prev, h, c, ws), "empty"));
    CHECK(mentions(ln_lstm_step(*cell, nullptr, h_prev, c_prev, h, c, ws), "xproj_t"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), nullptr, c_prev, h, c, ws), "h_prev"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, nullptr, h, c, ws), "c_prev"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, nullptr, c, ws), "h is null"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h, nullptr, ws), "c is null"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h, h + 3, ws), "overlaps"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h_prev + 1, c, ws), "h_prev"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, c_prev, c, ws), "c_prev"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h, xproj.data(), ws),
                   "xproj_t"));
    CHECK(mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, ws.hproj(), c, ws),
                   "workspace"));
    // A workspace of another hidden size.
    const LstmProblem q =
        make_lstm_problem(kD, kH + 1, 1, WeightType::kF32, RnnNormCase::kNone, 0, 4);
    Expected<LnLstmCell> other = make_ln_lstm_cell(q.weights(), WeightType::kF32, Isa::kScalar);
    REQUIRE(other);
    LnLstmWorkspace other_ws(*other);
    CHECK(
        mentions(ln_lstm_step(*cell, xproj.data(), h_prev, c_prev, h, c, other_ws), "hidden size"));

    std::vector<float> h_out(3 * kH), c_out(kH);
    CHECK(ln_lstm_sequence(*cell, p.x.data(), 3, nullptr, nullptr, h_out.data(), nullptr, ws));
    CHECK(mentions(ln_lstm_sequence(*cell, nullptr, 3, nullptr, nullptr, h_out.data(), nullptr, ws),
                   "x"));
    CHECK(mentions(ln_lstm_sequence(*cell, p.x.data(), 3, h_out.data() + kH, nullptr, h_out.data(),
                                    nullptr, ws),
                   "h0"));
    CHECK(mentions(
        ln_lstm_sequence(*cell, h_out.data(), 3, nullptr, nullptr, h_out.data(), nullptr, ws),
        "overlaps"));
    // steps = 0: c_out receives c0 (zeros when null), nothing else happens.
    c_out.assign(kH, 5.0f);
    CHECK(ln_lstm_sequence(*cell, nullptr, 0, nullptr, nullptr, nullptr, c_out.data(), ws));
    CHECK(c_out == std::vector<float>(kH, 0.0f));
    CHECK(ln_lstm_project_inputs(*cell, nullptr, 0, nullptr));
    CHECK(mentions(ln_lstm_project_inputs(*cell, p.x.data(), 3, nullptr), "xproj"));
  }

  TEST_CASE("ln_gru_step and ln_gru_sequence reject null, overlapping and mis-sized operands") {
    const GruProblem p =
        make_gru_problem(kD, kH, 3, WeightType::kF32, RnnNormCase::kLayerNorm, 0, 5);
    Expected<LnGruCell> cell = make_ln_gru_cell(p.weights(), WeightType::kF32, Isa::kScalar);
    REQUIRE(cell);
    LnGruWorkspace ws(*cell);
    std::vector<float> xproj(3 * kH, 0.1f), buf(4 * kH, 0.2f);
    float* h_prev = buf.data();
    float* h = buf.data() + 2 * kH;
    CHECK(ln_gru_step(*cell, xproj.data(), h_prev, h, ws));
    CHECK(ln_gru_step(*cell, xproj.data(), h_prev, h_prev, ws));  // in place
    CHECK(mentions(ln_gru_step(LnGruCell{}, xproj.data(), h_prev, h, ws), "empty"));
    CHECK(mentions(ln_gru_step(*cell, nullptr, h_prev, h, ws), "xproj_t"));
    CHECK(mentions(ln_gru_step(*cell, xproj.data(), nullptr, h, ws), "h_prev"));
    CHECK(mentions(ln_gru_step(*cell, xproj.data(), h_prev, nullptr, ws), "h is null"));
    CHECK(mentions(ln_gru_step(*cell, xproj.data(), h_prev, h_prev + 2, ws), "h_prev"));
    CHECK(mentions(ln_gru_step(*cell, xproj.data(), h_prev, xproj.data() + 1, ws), "xproj_t"));
    std::vector<float> h_out(3 * kH);
    CHECK(ln_gru_sequence(*cell, p.x.data(), 3, nullptr, h_out.data(), ws));
    CHECK(mentions(ln_gru_sequence(*cell, p.x.data(), 3, h_out.data(), h_out.data(), ws), "h0"));
    CHECK(mentions(ln_gru_sequence(*cell, p.x.data(), 3, nullptr, nullptr, ws), "h_out"));
    CHECK(ln_gru_sequence(*cell, nullptr, 0, nullptr, nullptr, ws));
  }
}

}  // namespace normrt::testing
