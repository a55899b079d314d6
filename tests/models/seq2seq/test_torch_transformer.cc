// build_torch_transformer on tiny random-weight nn.Transformer models
// exported from PyTorch (make_fixtures.py): the runtime's logits against
// PyTorch's float64 logits — teacher forcing in one run, token by token with
// the KV cache, greedy decoding — fused and unfused, f32 and bf16 matrices.
//
// The fixtures store their weights as BF16 and PyTorch computed from exactly
// those values, so bf16 matrices are exact and both storage types are held
// to the same float tolerance, |got − want| ≤ 1e-4 · max|want| — except that
// with bf16 matrices the default norm folding rounds W·diag(gain) to bf16
// again (docs/runtime.md, ~2^-9 per weight): that path is checked to
// 1e-2 · max|want| (measured ≤ 3.4e-3), and to 1e-4 with folding off.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "seq2seq_fixture.h"

namespace normrt {
namespace {

using test::Seq2SeqFixture;

std::unique_ptr<Session> session_for(const Seq2SeqFixture& f, DataType matrices, bool fuse,
                                     bool kv_cache, bool fold = true) {
  TorchTransformerBuildOptions options;
  options.source_length = static_cast<int64_t>(f.src_ids.size());
  options.kv_cache = kv_cache;
  auto graph = build_torch_transformer(f.config, *f.weights, matrices, options);
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  ModelOptions model_options;
  model_options.fuse = fuse;
  model_options.fold_norm_affine = fold;
  auto model = compile_model(std::move(graph).value(), model_options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  return std::move(session).value();
}

// Runs tgt (one chunk) against the fixture's source; the logits [T, V].
std::vector<float> run(Session& session, const Seq2SeqFixture& f, const std::vector<int32_t>& tgt) {
  REQUIRE(session.set_input("src_ids", f.src_ids.data(), f.src_ids.size() * 4).is_ok());
  Status bound = session.set_input("tgt_ids", tgt.data(), tgt.size() * 4);
  REQUIRE_MESSAGE(bound.is_ok(), bound.message());
  Status ran = session.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto out = session.output("logits");
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return std::vector<float>(out.value().f32(), out.value().f32() + out.value().elements());
}

// Rows [row, row + got/V) of the expected logits against `got`.
void check_rows(const Seq2SeqFixture& f, const std::vector<float>& got, size_t row,
                const std::string& what, double relative = 1e-4) {
  const size_t v = static_cast<size_t>(f.config.tgt_vocab_size);
  const double tolerance = relative * f.max_abs_logit;
  REQUIRE(got.size() % v == 0);
  REQUIRE((row + got.size() / v) * v <= f.logits.size());
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = f.logits[row * v + i];
    const double error = std::fabs(got[i] - want);
    worst = std::max(worst, error);
    if (!(error <= tolerance)) {
      FAIL_CHECK(what << ": logits[" << row + i / v << ", " << i % v << "] = " << got[i]
                      << ", PyTorch " << want << ", |diff| = " << error << " > " << tolerance);
      return;
    }
  }
  MESSAGE(what << ": max |diff| = " << worst << " (tolerance " << tolerance << ")");
}

TEST_SUITE("torch_transformer") {
  TEST_CASE("teacher forcing: logits equal PyTorch's, fused and unfused, f32 and bf16") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      for (DataType matrices : {DataType::kF32, DataType::kBF16})
        for (bool fuse : {true, false})
          for (bool fold : {true, false}) {
            const bool bf16 = matrices == DataType::kBF16;
            const std::string what = name + (bf16 ? " bf16" : " f32") +
                                     (fuse ? " fused" : " unfused") + (fold ? " folded" : "");
            const double relative = bf16 && fold ? 1e-2 : 1e-4;
            auto session = session_for(f, matrices, fuse, false, fold);
            check_rows(f, run(*session, f, f.tgt_ids), 0, what, relative);
            // Stateless: a second run starts from position 0 again.
            check_rows(f, run(*session, f, f.tgt_ids), 0, what + " (second run)", relative);
            // A prefix of the target gives the first rows (causal mask).
            check_rows(f, run(*session, f, {f.tgt_ids.begin(), f.tgt_ids.begin() + 2}), 0,
                       what + " (prefix of 2)", relative);
          }
    }
  }

  TEST_CASE("KV cache: token by token, and in chunks, the rows equal teacher forcing") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      for (bool fuse : {true, false}) {
        const std::string what = name + (fuse ? " fused" : " unfused");
        auto session = session_for(f, DataType::kF32, fuse, true);
        for (size_t t = 0; t < f.tgt_ids.size(); ++t) {
          CHECK(session->position() == t);
          check_rows(f, run(*session, f, {f.tgt_ids[t]}), t, what + " step " + std::to_string(t));
        }
        session->reset();
        check_rows(f, run(*session, f, {f.tgt_ids.begin(), f.tgt_ids.begin() + 3}), 0,
                   what + " chunk [0, 3)");
        check_rows(f, run(*session, f, {f.tgt_ids.begin() + 3, f.tgt_ids.end()}), 3,
                   what + " chunk [3, 5)");
      }
    }
  }

  // bf16 without folding: exactly PyTorch's weights, so no near-tie can flip.
  TEST_CASE("greedy decoding with the KV cache gives PyTorch's greedy ids") {
    for (const std::string& name : test::seq2seq_case_names()) {
      const Seq2SeqFixture f = test::load_seq2seq_fixture(name);
      for (DataType matrices : {DataType::kF32, DataType::kBF16}) {
        auto session = session_for(f, matrices, true, true, matrices == DataType::kF32);
        std::vector<int32_t> ids = {f.greedy_ids.front()};
        while (ids.size() < f.greedy_ids.size()) {
          std::vector<float> logits = run(*session, f, {ids.back()});
          ids.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) -
                                             logits.begin()));
        }
        CHECK_MESSAGE(ids == f.greedy_ids, name << ": greedy ids differ from PyTorch's");
      }
    }
  }
}

}  // namespace
}  // namespace normrt
