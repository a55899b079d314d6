// The LN-LSTM and LN-GRU cells on every runnable ISA, f32 and bf16 weights,
// against a double evaluation of the paper's equations
// (tests/kernels/test_ln_rnn_support.h, which derives the tolerance) over
// whole sequences: H in {1, 7, 64, 257}, D in {1, 5, 300}, LayerNorm,
// RMSNorm, pRMSNorm (p = 1/8), none, and the LSTM's DRAW placement. Every
// h_t and c_t of a 20-step sequence is checked, so every length T = 1..20 is
// (a sequence is causal; the test of every length below checks that within
// tolerance). The workspace chunk varies (1, 3, 20, 64 steps), so the inputs
// are projected in chunks that do and do not divide T. Every run is repeated:
// the same call gives the same bits.
//
// NORMRT_TEST_QUICK=1 drops H = 257 and D = 300.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "kernels/common/thread_pool.h"
#include "kernels/linear/fused_linear.h"
#include "tests/kernels/test_ln_rnn_support.h"

namespace normrt::testing {
namespace {

constexpr size_t kSteps = 20;
constexpr size_t kChunks[] = {1, 3, 20, 64};
constexpr RnnNormCase kLstmCases[] = {RnnNormCase::kLayerNorm, RnnNormCase::kRmsNorm,
                                      RnnNormCase::kPartialRmsNorm, RnnNormCase::kNone,
                                      RnnNormCase::kDraw};
constexpr RnnNormCase kGruCases[] = {RnnNormCase::kLayerNorm, RnnNormCase::kRmsNorm,
                                     RnnNormCase::kPartialRmsNorm, RnnNormCase::kNone};

std::vector<size_t> hidden_sizes() {
  if (rnn_quick_mode()) return {1, 7, 64};
  return {1, 7, 64, 257};
}
std::vector<size_t> input_sizes() {
  if (rnn_quick_mode()) return {1, 5};
  return {1, 5, 300};
}

// Outputs of one LSTM sequence.
struct LstmRun {
  std::vector<float> h, c;  // (steps, H) each: c_t gathered step by step
};

// Runs the problem step by step through the public API: projections, then
// ln_lstm_step, keeping every c_t. `in_place`: h and c updated in place.
LstmRun run_lstm_steps(const LnLstmCell& cell, const LstmProblem& p, bool in_place,
                       ThreadPool* pool = nullptr) {
  const size_t h = p.h;
  LnLstmWorkspace ws(cell);
  std::vector<float> xproj(p.steps * 4 * h);
  REQUIRE(ln_lstm_project_inputs(cell, p.x.data(), p.steps, xproj.data(), pool));
  LstmRun run{std::vector<float>(p.steps * h), std::vector<float>(p.steps * h)};
  std::vector<float> hs = p.h0, cs = p.c0;
  for (size_t t = 0; t < p.steps; ++t) {
    float* h_out = in_place ? hs.data() : run.h.data() + t * h;
    float* c_out = in_place ? cs.data() : run.c.data() + t * h;
    const float* h_prev = in_place || t == 0 ? hs.data() : run.h.data() + (t - 1) * h;
    const float* c_prev = in_place || t == 0 ? cs.data() : run.c.data() + (t - 1) * h;
    Status s = ln_lstm_step(cell, xproj.data() + t * 4 * h, h_prev, c_prev, h_out, c_out, ws, pool);
    REQUIRE_MESSAGE(s, s.message());
    if (in_place) {
      std::copy(hs.begin(), hs.end(), run.h.begin() + t * h);
      std::copy(cs.begin(), cs.end(), run.c.begin() + t * h);
    }
  }
  return run;
}

// ln_lstm_sequence with a workspace chunk of `chunk` steps; c_t only at the end.
LstmRun run_lstm_sequence(const LnLstmCell& cell, const LstmProblem& p, size_t chunk,
                          ThreadPool* pool = nullptr) {
  LnLstmWorkspace ws(cell, chunk);
  LstmRun run{std::vector<float>(p.steps * p.h), p.c0};
  Status s = ln_lstm_sequence(cell, p.x.data(), p.steps, p.h0.data(), run.c.data(), run.h.data(),
                              run.c.data(), ws, pool);
  REQUIRE_MESSAGE(s, s.message());
  return run;
}

std::vector<float> run_gru_sequence(const LnGruCell& cell, const GruProblem& p, size_t chunk,
                                    ThreadPool* pool = nullptr) {
  LnGruWorkspace ws(cell, chunk);
  std::vector<float> h(p.steps * p.h);
  Status s = ln_gru_sequence(cell, p.x.data(), p.steps, p.h0.data(), h.data(), ws, pool);
  REQUIRE_MESSAGE(s, s.message());
  return h;
}

std::vector<float> run_gru_steps(const LnGruCell& cell, const GruProblem& p) {
  const size_t h = p.h;
  LnGruWorkspace ws(cell);
  std::vector<float> xproj(p.steps * 3 * h);
  REQUIRE(ln_gru_project_inputs(cell, p.x.data(), p.steps, xproj.data()));
  std::vector<float> out(p.steps * h), state = p.h0;
  for (size_t t = 0; t < p.steps; ++t) {  // in place: h == h_prev
    Status s = ln_gru_step(cell, xproj.data() + t * 3 * h, state.data(), state.data(), ws);
    REQUIRE_MESSAGE(s, s.message());
    std::copy(state.begin(), state.end(), out.begin() + t * h);
  }
  return out;
}

// The c_T of a step-by-step run, as the sequence API reports it.
std::vector<float> last_row(const std::vector<float>& v, size_t steps, size_t h) {
  return std::vector<float>(v.begin() + (steps - 1) * h, v.begin() + steps * h);
}

bool prms_is_invalid(RnnNormCase c, size_t n) {
  return c == RnnNormCase::kPartialRmsNorm && n / 8 == 0;  // floor(n/8) = 0
}

}  // namespace

TEST_SUITE("ln_rnn") {
  TEST_CASE(
      "ln_lstm sequences match the double evaluation of eqs. 17-22 on every ISA, f32 and bf16") {
    double worst_h = 0.0, worst_c = 0.0;
    size_t runs = 0, case_index = 0;
    for (size_t h : hidden_sizes()) {
      for (size_t d : input_sizes()) {
        for (RnnNormCase nc : kLstmCases) {
          for (WeightType type : {WeightType::kF32, WeightType::kBF16}) {
            const int variant = static_cast<int>(case_index % 2);
            const size_t chunk = kChunks[case_index % 4];
            ++case_index;
            const LstmProblem p = make_lstm_problem(d, h, kSteps, type, nc, variant,
                                                    static_cast<uint32_t>(h * 1000 + d * 10));
            for (Isa isa : runnable_isas()) {
              const std::string isa_label = isa_name(isa);
              CAPTURE(isa_label);
              const std::string type_label = weight_type_name(type);
              CAPTURE(type_label);
              const std::string norm_label = rnn_norm_case_name(nc);
              CAPTURE(norm_label);
              CAPTURE(variant);
              CAPTURE(h);
              CAPTURE(d);
              CAPTURE(chunk);
              Expected<LnLstmCell> cell = make_ln_lstm_cell(p.weights(), type, isa);
              const bool cell_norm = nc != RnnNormCase::kNone;
              const bool proj_norm = cell_norm && nc != RnnNormCase::kDraw;
              if (prms_is_invalid(nc, h) || (proj_norm && prms_is_invalid(nc, 4 * h))) {
                REQUIRE_FALSE(cell);
                CHECK(cell.status().message().find("floor") != std::string::npos);
                continue;
              }
              REQUIRE_MESSAGE(cell, cell.status().message());
              const LstmRun steps = run_lstm_steps(*cell, p, false);
              std::string failure = compare_sequence("h", steps.h, p.ref_h, kSteps, h, &worst_h);
              if (failure.empty()) {
                failure = compare_sequence("c", steps.c, p.ref_c, kSteps, h, &worst_c);
              }
              CHECK_MESSAGE(failure.empty(), failure);
              // The sequence API, chunked: as accurate, and the same bits run
              // after run. Projecting all steps at once, it is the step API's
              // bits too (a chunk of one step projects through the m = 1 GEMV,
              // which sums in another order: equal within rounding only).
              const LstmRun seq = run_lstm_sequence(*cell, p, chunk);
              failure = compare_sequence("h", seq.h, p.ref_h, kSteps, h, &worst_h);
              CHECK_MESSAGE(failure.empty(), failure);
              if (chunk >= kSteps) {
                CHECK(bit_identical(seq.h, steps.h));
                CHECK(bit_identical(seq.c, last_row(steps.c, kSteps, h)));
              }
              const LstmRun again = run_lstm_sequence(*cell, p, chunk);
              CHECK(bit_identical(again.h, seq.h));
              CHECK(bit_identical(again.c, seq.c));
              CHECK(bit_identical(run_lstm_steps(*cell, p, true).h, steps.h));  // in place
              ++runs;
            }
          }
        }
      }
    }
    MESSAGE("ln_lstm: " << runs << " sequences of " << kSteps
                        << " steps; worst |error| / max|ref|: h " << worst_h << ", c " << worst_c
                        << " (tolerance " << kRnnTolerance << ")");
  }

  TEST_CASE(
      "ln_gru sequences match the double evaluation of eqs. 23-28 on every ISA, f32 and bf16") {
    double worst = 0.0;
    size_t runs = 0, case_index = 0;
    for (size_t h : hidden_sizes()) {
      for (size_t d : input_sizes()) {
        for (RnnNormCase nc : kGruCases) {
          for (WeightType type : {WeightType::kF32, WeightType::kBF16}) {
            const int variant = static_cast<int>(case_index % 2);
            const size_t chunk = kChunks[case_index % 4];
            ++case_index;
            const GruProblem p = make_gru_problem(d, h, kSteps, type, nc, variant,
                                                  static_cast<uint32_t>(h * 1000 + d * 10 + 7));
            for (Isa isa : runnable_isas()) {
              const std::string isa_label = isa_name(isa);
              CAPTURE(isa_label);
              const std::string type_label = weight_type_name(type);
              CAPTURE(type_label);
              const std::string norm_label = rnn_norm_case_name(nc);
              CAPTURE(norm_label);
              CAPTURE(variant);
              CAPTURE(h);
              CAPTURE(d);
              CAPTURE(chunk);
              Expected<LnGruCell> cell = make_ln_gru_cell(p.weights(), type, isa);
              if (prms_is_invalid(nc, h)) {  // N over H; 2H is valid whenever H is
                REQUIRE_FALSE(cell);
                CHECK(cell.status().message().find("floor") != std::string::npos);
                continue;
              }
              REQUIRE_MESSAGE(cell, cell.status().message());
              const std::vector<float> seq = run_gru_sequence(*cell, p, chunk);
              std::string failure = compare_sequence("h", seq, p.ref_h, kSteps, h, &worst);
              CHECK_MESSAGE(failure.empty(), failure);
              CHECK(bit_identical(run_gru_sequence(*cell, p, chunk), seq));
              // Step by step, in place (h == h_prev), all steps projected at once.
              const std::vector<float> steps = run_gru_steps(*cell, p);
              failure = compare_sequence("h", steps, p.ref_h, kSteps, h, &worst);
              CHECK_MESSAGE(failure.empty(), failure);
              if (chunk >= kSteps) CHECK(bit_identical(steps, seq));
              ++runs;
            }
          }
        }
      }
    }
    MESSAGE("ln_gru: " << runs << " sequences of " << kSteps
                       << " steps; worst |error| / max|ref h| " << worst << " (tolerance "
                       << kRnnTolerance << ")");
  }

  TEST_CASE("sequences of every length T = 1..20 in chunks of 3 and 4 steps follow the equations") {
    // Every remainder of the last chunk, including a chunk of one step.
    for (Isa isa : runnable_isas()) {
      const std::string isa_label = isa_name(isa);
      CAPTURE(isa_label);
      const LstmProblem lp =
          make_lstm_problem(5, 7, kSteps, WeightType::kF32, RnnNormCase::kLayerNorm, 0, 11);
      const GruProblem gp =
          make_gru_problem(5, 9, kSteps, WeightType::kBF16, RnnNormCase::kRmsNorm, 0, 12);
      Expected<LnLstmCell> lstm = make_ln_lstm_cell(lp.weights(), WeightType::kF32, isa);
      Expected<LnGruCell> gru = make_ln_gru_cell(gp.weights(), WeightType::kBF16, isa);
      REQUIRE(lstm);
      REQUIRE(gru);
      for (size_t t = 1; t <= kSteps; ++t) {
        CAPTURE(t);
        LstmProblem lt = lp;  // the oracle of the first t steps is a prefix of the 20's
        lt.steps = t;
        const LstmRun part = run_lstm_sequence(*lstm, lt, 3);
        std::string failure = compare_sequence("h", part.h, lp.ref_h, t, lp.h, nullptr);
        CHECK_MESSAGE(failure.empty(), failure);
        const std::vector<double> ref_c(lp.ref_c.begin() + (t - 1) * lp.h,
                                        lp.ref_c.begin() + t * lp.h);
        failure = compare_sequence("c_T", part.c, ref_c, 1, lp.h, nullptr);
        CHECK_MESSAGE(failure.empty(), failure);
        GruProblem gt = gp;
        gt.steps = t;
        failure = compare_sequence("h", run_gru_sequence(*gru, gt, 4), gp.ref_h, t, gp.h, nullptr);
        CHECK_MESSAGE(failure.empty(), failure);
      }
    }
  }

  TEST_CASE("with a thread pool splitting the GEMVs, sequences match and repeat bit for bit") {
    // Force the parallel m = 1 path of fused_linear for every size.
    const size_t previous = detail::set_fused_linear_min_parallel_bytes(0);
    ThreadPool pool(2);
    for (Isa isa : runnable_isas()) {
      const std::string isa_label = isa_name(isa);
      CAPTURE(isa_label);
      const LstmProblem lp =
          make_lstm_problem(70, 130, 8, WeightType::kF32, RnnNormCase::kLayerNorm, 0, 21);
      const GruProblem gp =
          make_gru_problem(70, 130, 8, WeightType::kBF16, RnnNormCase::kPartialRmsNorm, 1, 22);
      Expected<LnLstmCell> lstm = make_ln_lstm_cell(lp.weights(), WeightType::kF32, isa);
      Expected<LnGruCell> gru = make_ln_gru_cell(gp.weights(), WeightType::kBF16, isa);
      REQUIRE(lstm);
      REQUIRE(gru);
      const LstmRun a = run_lstm_steps(*lstm, lp, false, &pool);
      const LstmRun b = run_lstm_steps(*lstm, lp, false, &pool);
      std::string failure = compare_sequence("h", a.h, lp.ref_h, lp.steps, lp.h, nullptr);
      if (failure.empty()) failure = compare_sequence("c", a.c, lp.ref_c, lp.steps, lp.h, nullptr);
      CHECK_MESSAGE(failure.empty(), failure);
      CHECK(bit_identical(a.h, b.h));
      CHECK(bit_identical(a.c, b.c));
      const std::vector<float> g1 = run_gru_sequence(*gru, gp, 3, &pool);
      const std::vector<float> g2 = run_gru_sequence(*gru, gp, 3, &pool);
      failure = compare_sequence("h", g1, gp.ref_h, gp.steps, gp.h, nullptr);
      CHECK_MESSAGE(failure.empty(), failure);
      CHECK(bit_identical(g1, g2));
    }
    detail::set_fused_linear_min_parallel_bytes(previous);
  }

  TEST_CASE("N(c_t) of a vanishing c_t (double fallback) and of |mean| >> std (second sweep)") {
    for (Isa isa : runnable_isas()) {
      for (RnnNormCase nc : {RnnNormCase::kDraw, RnnNormCase::kLayerNorm, RnnNormCase::kRmsNorm}) {
        const std::string isa_label = isa_name(isa);
        CAPTURE(isa_label);
        const std::string norm_label = rnn_norm_case_name(nc);
        CAPTURE(norm_label);
        // b (added after any normalization) sets the gates. σ(i) ≈ e^-40 and
        // c_0 = 0: |c_t| ~ 1e-17, normal floats whose float sum of squares is
        // below the kernels' safe range, so c_t is normalized by the double
        // reference; eps = 0 keeps N(c_t) scale-free, so it matters.
        LstmProblem tiny = make_lstm_problem(5, 37, 3, WeightType::kF32, nc, 0, 31);
        tiny.norm.eps = 0.0f;
        for (size_t j = tiny.h; j < 2 * tiny.h; ++j) tiny.b[j] = -40.0f;
        std::fill(tiny.c0.begin(), tiny.c0.end(), 0.0f);
        lstm_oracle(tiny);
        // σ(f) = 1 in float and c_0 = 30 + U(-1, 1): c_t has |mean| >> std.
        LstmProblem offset = make_lstm_problem(5, 37, 3, WeightType::kF32, nc, 0, 32);
        for (size_t j = 0; j < offset.h; ++j) offset.b[j] = 100.0f;
        for (float& c : offset.c0) c += 30.0f;
        lstm_oracle(offset);
        for (LstmProblem* p : {&tiny, &offset}) {
          Expected<LnLstmCell> cell = make_ln_lstm_cell(p->weights(), WeightType::kF32, isa);
          REQUIRE(cell);
          const LstmRun run = run_lstm_steps(*cell, *p, false);
          std::string failure = compare_sequence("h", run.h, p->ref_h, p->steps, p->h, nullptr);
          if (failure.empty()) {
            failure = compare_sequence("c", run.c, p->ref_c, p->steps, p->h, nullptr);
          }
          CHECK_MESSAGE(failure.empty(), (p == &tiny ? "vanishing c: " : "offset c: ") << failure);
        }
      }
    }
  }
}

}  // namespace normrt::testing
