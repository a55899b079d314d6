// The sequence ops inside a compiled model and its Sessions: the session
// position drives Rope and the KV cache, state updates carry LSTM and GRU
// state between runs, threads change nothing, and run() allocates nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "tests/runtime/seq_ops/attention_reference.h"
#include "tests/runtime/seq_ops/rnn_reference.h"
#include "tests/runtime/seq_ops/seq_test_support.h"
#include "tests/support/allocation_counter.h"

namespace normrt::testing {
namespace {

constexpr int64_t kHeads = 4, kKvHeads = 2, kHeadDim = 8, kCapacity = 16;
constexpr int64_t kQCols = kHeads * kHeadDim, kKvCols = kKvHeads * kHeadDim;

// q, k → Rope (half) → Attention (causal, GQA) over a KV cache in state.
std::shared_ptr<const Model> decoder_model() {
  GraphBuilder b;
  const TensorId q = b.input("q", DataType::kF32, {kSequenceDim, kQCols});
  const TensorId k = b.input("k", DataType::kF32, {kSequenceDim, kKvCols});
  const TensorId v = b.input("v", DataType::kF32, {kSequenceDim, kKvCols});
  const TensorId k_cache = b.state("k_cache", DataType::kF32, {kCapacity, kKvCols});
  const TensorId v_cache = b.state("v_cache", DataType::kF32, {kCapacity, kKvCols});
  const TensorId q_rot = b.node(OpType::kRope, "rope_q", {q}, {{kSequenceDim, kQCols}},
                                {{"num_heads", int64_t{kHeads}}});
  const TensorId k_rot = b.node(OpType::kRope, "rope_k", {k}, {{kSequenceDim, kKvCols}},
                                {{"num_heads", int64_t{kKvHeads}}});
  const TensorId out = b.node(OpType::kAttention, "attn", {q_rot, k_rot, v, k_cache, v_cache},
                              {{kSequenceDim, kQCols}},
                              {{"num_heads", int64_t{kHeads}},
                               {"num_kv_heads", int64_t{kKvHeads}},
                               {"causal", int64_t{1}}});
  b.rename(out, "out");
  b.output(out);
  auto model = compile_model(b.finish(4), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

// Rope "half" in double at positions 0.. of the rows.
std::vector<float> rotated(const std::vector<float>& x, size_t rows, size_t heads) {
  std::vector<float> out(x);
  const size_t d = kHeadDim, half = d / 2;
  for (size_t i = 0; i < rows; ++i) {
    for (size_t h = 0; h < heads; ++h) {
      for (size_t j = 0; j < half; ++j) {
        const double angle = static_cast<double>(i) * std::pow(10000.0, -2.0 * j / d);
        const size_t a = i * heads * d + h * d + j, b = a + half;
        out[a] = static_cast<float>(x[a] * std::cos(angle) - x[b] * std::sin(angle));
        out[b] = static_cast<float>(x[b] * std::cos(angle) + x[a] * std::sin(angle));
      }
    }
  }
  return out;
}

TEST_SUITE("seq_ops") {
  TEST_CASE("session: Rope and the KV cache follow the position over runs of S=3, 1, 1, 2") {
    constexpr size_t kTokens = 7;
    const std::vector<float> q = uniform_floats(kTokens * kQCols, -1.0f, 1.0f, 81);
    const std::vector<float> k = uniform_floats(kTokens * kKvCols, -1.0f, 1.0f, 82);
    const std::vector<float> v = uniform_floats(kTokens * kKvCols, -1.0f, 1.0f, 83);
    // Reference: rotate at absolute positions, then causal attention over
    // everything. Tolerance: the attention bound (attention_reference.h)
    // plus the rope's relative error (≤ 26u at angles ≤ 10) moving each
    // score by ≤ 2·26u·scale·Σ|qk|, i.e. ≤ 4·52u·scale·Σ|qk|·max|v| at the output.
    const AttentionSizes sizes{kHeads, kKvHeads, kHeadDim, 1.0 / std::sqrt(double{kHeadDim}), true};
    const std::vector<float> q_rot = rotated(q, kTokens, kHeads);
    const std::vector<float> k_rot = rotated(k, kTokens, kKvHeads);
    std::vector<double> tol;
    const std::vector<double> ref =
        reference_attention(sizes, q_rot, k_rot, v, kTokens, kTokens, 0, &tol);
    // |q|, |k|, |v| ≤ 1 before the rotation, ≤ √2 after: Σ|qk| ≤ 2d.
    const double rope_share = 4.0 * 52.0 * std::ldexp(1.0, -24) * sizes.scale * 2.0 * kHeadDim;

    auto model = decoder_model();
    for (size_t threads : {size_t{1}, size_t{2}}) {
      CAPTURE(threads);
      auto session = Session::create(model, {threads});
      REQUIRE(session.is_ok());
      Session& s = *session.value();
      for (int pass = 0; pass < 2; ++pass) {  // the second pass after reset()
        CAPTURE(pass);
        size_t position = 0;
        for (size_t rows : {3, 1, 1, 2}) {
          REQUIRE(s.position() == position);
          const std::vector<float> q_run(q.begin() + position * kQCols,
                                         q.begin() + (position + rows) * kQCols);
          const std::vector<float> k_run(k.begin() + position * kKvCols,
                                         k.begin() + (position + rows) * kKvCols);
          const std::vector<float> v_run(v.begin() + position * kKvCols,
                                         v.begin() + (position + rows) * kKvCols);
          REQUIRE(s.set_input("q", q_run.data(), q_run.size() * 4).is_ok());
          REQUIRE(s.set_input("k", k_run.data(), k_run.size() * 4).is_ok());
          REQUIRE(s.set_input("v", v_run.data(), v_run.size() * 4).is_ok());
          normrt::testing::start_counting_allocations();
          Status ran = s.run();
          const size_t allocations = normrt::testing::stop_counting_allocations();
          REQUIRE_MESSAGE(ran.is_ok(), ran.message());
          CHECK(allocations == 0);
          auto out = s.output("out");
          REQUIRE(out.is_ok());
          std::vector<float> got(out->f32(), out->f32() + rows * kQCols);
          const std::vector<double> want(ref.begin() + position * kQCols,
                                         ref.begin() + (position + rows) * kQCols);
          const std::string failure = compare_within("out", got, want, kQCols, [&](size_t i) {
            return tol[position * kQCols + i] + rope_share;
          });
          CHECK_MESSAGE(failure == "", failure);
          position += rows;
        }
        s.reset();
      }
    }
  }

  TEST_CASE("session: LSTM and GRU state carried by state updates over runs") {
    constexpr int64_t kD = 5, kH = 3;
    RefLstm lstm;
    lstm.d = kD;
    lstm.h = kH;
    lstm.placement = RefLstmPlacement::kCellOnly;
    lstm.norm.kind = RefNorm::kRmsNorm;
    lstm.w_x = uniform_floats(4 * kH * kD, -0.7f, 0.7f, 91);
    lstm.w_h = uniform_floats(4 * kH * kH, -0.9f, 0.9f, 92);
    lstm.b = uniform_floats(4 * kH, -0.5f, 0.5f, 93);
    lstm.gain_c = uniform_floats(kH, 0.7f, 1.3f, 94);
    RefGru gru;
    gru.d = kD;
    gru.h = kH;
    gru.normalized = false;
    gru.w_x = uniform_floats(2 * kH * kD, -0.7f, 0.7f, 95);
    gru.w_h = uniform_floats(2 * kH * kH, -0.9f, 0.9f, 96);
    gru.w = uniform_floats(kH * kD, -0.7f, 0.7f, 97);
    gru.u = uniform_floats(kH * kH, -0.9f, 0.9f, 98);
    gru.bias_x = uniform_floats(2 * kH, -0.3f, 0.3f, 99);

    GraphBuilder b;
    const TensorId x = b.input("x", DataType::kF32, {kSequenceDim, kD});
    const TensorId h = b.state("lstm.h", DataType::kF32, {1, kH});
    const TensorId c = b.state("lstm.c", DataType::kF32, {1, kH});
    const TensorId g = b.state("gru.h", DataType::kF32, {1, kH});
    const TensorId lstm_seq = b.node(
        OpType::kLstmCell, "lstm",
        {x, h, c, b.weight("lstm.w_x", {4 * kH, kD}, lstm.w_x),
         b.weight("lstm.w_h", {4 * kH, kH}, lstm.w_h), b.weight("lstm.b", {4 * kH}, lstm.b),
         kNoTensor, kNoTensor, kNoTensor, kNoTensor, b.weight("lstm.gain_c", {kH}, lstm.gain_c)},
        {{kSequenceDim, kH}, {1, kH}, {1, kH}},
        {{"norm", std::string("rms_norm")}, {"placement", std::string("cell_only")}});
    b.state_update(h, lstm_seq + 1);
    b.state_update(c, lstm_seq + 2);
    const TensorId gru_seq =
        b.node(OpType::kGruCellBa, "gru",
               {x, g, b.weight("gru.w_x", {2 * kH, kD}, gru.w_x),
                b.weight("gru.w_h", {2 * kH, kH}, gru.w_h), b.weight("gru.w", {kH, kD}, gru.w),
                b.weight("gru.u", {kH, kH}, gru.u), kNoTensor, kNoTensor, kNoTensor,
                b.weight("gru.bias_x", {2 * kH}, gru.bias_x)},
               {{kSequenceDim, kH}, {1, kH}});
    b.state_update(g, gru_seq + 1);
    b.rename(lstm_seq, "lstm_seq");
    b.rename(gru_seq, "gru_seq");
    b.output(lstm_seq);
    b.output(gru_seq);
    auto model = compile_model(b.finish(6), {});
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    auto session = Session::create(model.value());
    REQUIRE(session.is_ok());

    constexpr size_t kSteps = 11;
    const std::vector<float> xs = uniform_floats(kSteps * kD, -1.0f, 1.0f, 90);
    std::vector<float> lstm_all, gru_all;
    size_t first = 0;
    for (size_t rows : {4, 1, 1, 5}) {
      REQUIRE(session.value()->set_input("x", xs.data() + first * kD, rows * kD * 4).is_ok());
      normrt::testing::start_counting_allocations();
      Status ran = session.value()->run();
      const size_t allocations = normrt::testing::stop_counting_allocations();
      REQUIRE_MESSAGE(ran.is_ok(), ran.message());
      CHECK(allocations == 0);
      for (auto [name, all] : {std::pair{"lstm_seq", &lstm_all}, {"gru_seq", &gru_all}}) {
        auto out = session.value()->output(name);
        REQUIRE(out.is_ok());
        all->insert(all->end(), out->f32(), out->f32() + rows * kH);
      }
      first += rows;
    }
    REQUIRE(first == kSteps);
    // Tolerance 1e-4 · max|h| as in test_lstm_cell.cc.
    for (auto [what, got, want] :
         {std::tuple{"lstm h", &lstm_all, reference_lstm(lstm, xs, kSteps, {}, {}, false).h_seq},
          {"gru h", &gru_all, reference_gru(gru, xs, kSteps, {}, false).h_seq}}) {
      double scale = 0.0;
      for (double e : want) scale = std::max(scale, std::fabs(e));
      const std::string failure =
          compare_within(what, *got, want, kH, [&](size_t) { return 1e-4 * scale; });
      CHECK_MESSAGE(failure == "", failure);
    }
  }
}

}  // namespace
}  // namespace normrt::testing
