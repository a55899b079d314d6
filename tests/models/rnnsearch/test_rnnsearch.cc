// RNNSearch converted from Nematus-named .npz fixtures and run against
// PyTorch's float64 evaluation of Nematus' equations (make_fixtures.py):
// encoder outputs, every teacher-forced step's logits and alignment, greedy
// ids; fused against unfused; bf16 matrices.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

#include "tests/models/rnnsearch/rnnsearch_fixture.h"

namespace normrt::test {
namespace {

constexpr double kF32Tolerance = 1e-4;  // normwise relative, per tensor / per step
constexpr double kBf16Tolerance = 3e-2;

struct Worst {
  double encoder = 0, logits = 0, alignment = 0;
};

// Checks one model pair against every sentence of the case; returns the
// largest errors seen.
Worst check_against_reference(const RnnSearchCase& c, const RnnSearchModels& m, double tolerance) {
  Worst worst;
  const std::vector<SentenceExpectation> sentences = load_expectations(c.name);
  for (size_t i = 0; i < sentences.size(); ++i) {
    const SentenceExpectation& e = sentences[i];
    CAPTURE(c.name);
    CAPTURE(i);
    const Encoded enc = encode(m.encoder, e.src_ids);
    for (auto [name, actual, expected] :
         {std::tuple<const char*, const std::vector<float>*, const Expected64*>{
              "annotations", &enc.annotations, &e.annotations},
          {"attention_keys", &enc.attention_keys, &e.attention_keys},
          {"init_state", &enc.init_state, &e.init_state}}) {
      REQUIRE(actual->size() == expected->values.size());
      const double err = normwise_error(actual->data(), expected->values.data(), actual->size());
      CHECK_MESSAGE(err <= tolerance, name << ": normwise error " << err << " > " << tolerance);
      worst.encoder = std::max(worst.encoder, err);
    }
    auto session = start_decoder(m.decoder, enc);
    const size_t v = static_cast<size_t>(e.logits.shape[1]), s = e.src_ids.size();
    int32_t prev = -1;
    for (size_t t = 0; t < e.tgt_ids.size(); ++t) {
      std::vector<float> alignment;
      const std::vector<float> logits = decoder_step(*session, prev, &alignment);
      REQUIRE(logits.size() == v);
      REQUIRE(alignment.size() == s);
      const double err = normwise_error(logits.data(), &e.logits.values[t * v], v);
      const double align = normwise_error(alignment.data(), &e.alignment.values[t * s], s);
      CHECK_MESSAGE(err <= tolerance,
                    "step " << t << " (prev id " << prev << ") logits: normwise error " << err);
      CHECK_MESSAGE(align <= tolerance, "step " << t << " alignment: normwise error " << align);
      worst.logits = std::max(worst.logits, err);
      worst.alignment = std::max(worst.alignment, align);
      prev = e.tgt_ids[t];
    }
  }
  return worst;
}

void report(const std::string& what, const std::string& name, const Worst& w) {
  MESSAGE(what << " " << name << ": encoder " << w.encoder << ", logits " << w.logits
               << ", alignment " << w.alignment << " (max normwise relative error)");
}

TEST_CASE("rnnsearch f32 matches Nematus' equations over whole sequences, fused and unfused") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    for (bool fuse : {true, false}) {
      const RnnSearchModels m = convert_and_load(c, DataType::kF32, fuse, fuse ? ".f" : ".u");
      CHECK((m.decoder->passes().fused_linear_nodes > 0) == fuse);
      CHECK((m.encoder->passes().fused_linear_nodes > 0) == fuse);
      report(fuse ? "fused" : "unfused", c.name, check_against_reference(c, m, kF32Tolerance));
    }
  }
}

TEST_CASE("rnnsearch with bf16 matrices stays within the documented bf16 tolerance") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels m = convert_and_load(c, DataType::kBF16, true, ".bf16");
    report("bf16", c.name, check_against_reference(c, m, kBf16Tolerance));
  }
}

TEST_CASE("rnnsearch fused and unfused decoders agree step by step") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels fused = convert_and_load(c, DataType::kF32, true, ".f");
    const RnnSearchModels plain = convert_and_load(c, DataType::kF32, false, ".u");
    double worst = 0;
    for (const SentenceExpectation& e : load_expectations(c.name)) {
      const Encoded a = encode(fused.encoder, e.src_ids), b = encode(plain.encoder, e.src_ids);
      auto sa = start_decoder(fused.decoder, a), sb = start_decoder(plain.decoder, b);
      int32_t prev = -1;
      for (int32_t next : e.tgt_ids) {
        const std::vector<float> la = decoder_step(*sa, prev), lb = decoder_step(*sb, prev);
        std::vector<double> lb64(lb.begin(), lb.end());
        const double err = normwise_error(la.data(), lb64.data(), la.size());
        CHECK_MESSAGE(err <= 1e-5, c.name << " prev id " << prev << ": " << err);
        worst = std::max(worst, err);
        prev = next;
      }
    }
    MESSAGE("fused vs unfused " << c.name << ": " << worst);
  }
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string text = "[";
  for (int32_t id : ids) text += (text.size() > 1 ? " " : "") + std::to_string(id);
  return text + "]";
}

// A plain loop: argmax of each step's logits fed back, from -1 to EOS (0)
// or as many steps as the reference took.
std::vector<int32_t> greedy_ids(const RnnSearchModels& m, const std::vector<int32_t>& src,
                                size_t max_steps) {
  const Encoded source = encode(m.encoder, src);  // bound to the session: must outlive it
  auto session = start_decoder(m.decoder, source);
  std::vector<int32_t> ids;
  int32_t prev = -1;
  while (ids.size() < max_steps && prev != 0) {
    const std::vector<float> logits = decoder_step(*session, prev);
    prev = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    ids.push_back(prev);
  }
  return ids;
}

TEST_CASE("rnnsearch greedy decoding gives PyTorch's token ids") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels m = convert_and_load(c, DataType::kF32, true, ".f");
    for (const SentenceExpectation& e : load_expectations(c.name)) {
      CAPTURE(c.name);
      const std::vector<int32_t> ids = greedy_ids(m, e.src_ids, 12);
      CHECK_MESSAGE(ids == e.greedy_ids,
                    "normrt " << ids_text(ids) << ", PyTorch " << ids_text(e.greedy_ids));
    }
  }
}

}  // namespace
}  // namespace normrt::test
