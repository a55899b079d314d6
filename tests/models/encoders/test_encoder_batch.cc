// Batches through the encoder families built on BERT's graph: each
// fixture's sequences, right-padded into input_ids [B, S] with an attention
// mask, give the rows of B separate runs (those are checked against
// transformers in test_encoder_families.cc). RoBERTa and XLM-R count their
// positions from the ids (padding_idx), so a packed batch must restart that
// count at every sequence; a pad id inside a sequence must not move it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "encoder_fixture.h"

namespace normrt {
namespace {

// Batched vs separate runs: 1e-6 of the row's largest value (issue 19's bound).
constexpr double kBatchRtol = 1e-6;

std::unique_ptr<Session> batch_session(std::shared_ptr<const Model> model, size_t max_batch) {
  SessionOptions options;
  options.max_batch = max_batch;
  auto session = Session::create(std::move(model), options);
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  return std::move(session).value();
}

std::vector<float> output_of(const Session& session, const char* name) {
  auto out = session.output(name);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return {out.value().f32(), out.value().f32() + out.value().elements()};
}

// The fixture's id sequences, longest last, with one of length 1 first.
std::vector<std::vector<int32_t>> sequences_of(const test::EncoderFixture& f) {
  std::vector<std::vector<int32_t>> all;
  for (const test::EncoderCase& c : f.cases)
    if (c.types.empty() && !c.ids.empty()) all.push_back(c.ids);
  REQUIRE(all.size() >= 2);
  all.insert(all.begin(), std::vector<int32_t>{all[0][0]});
  return all;
}

void check_family(const std::string& fixture, int32_t pad_id) {
  auto f = test::read_encoder_fixture(fixture);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  const auto sequences = sequences_of(f.value());
  for (bool fuse : {true, false}) {
    CAPTURE(fuse);
    auto model = test::build_fixture_model(f.value().dir, {}, fuse);
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    REQUIRE_MESSAGE(model.value()->batch_refusal().empty(), model.value()->batch_refusal());
    auto single = batch_session(model.value(), 1);
    auto batched = batch_session(model.value(), sequences.size());

    std::vector<float> want;
    for (const auto& ids : sequences) {
      auto rows = test::run_ids(*single, ids, "last_hidden_state");
      REQUIRE_MESSAGE(rows.is_ok(), rows.status().message());
      want.insert(want.end(), rows.value().begin(), rows.value().end());
    }

    size_t padded = 0;
    for (const auto& ids : sequences) padded = std::max(padded, ids.size());
    const size_t batch = sequences.size();
    std::vector<int32_t> ids(batch * padded, pad_id), mask(batch * padded, 0);
    for (size_t b = 0; b < batch; ++b)
      for (size_t i = 0; i < sequences[b].size(); ++i) {
        ids[b * padded + i] = sequences[b][i];
        mask[b * padded + i] = 1;
      }
    const TensorShape shape = TensorShape::of({batch, padded});
    REQUIRE(batched->set_input("input_ids", ElementType::kI32, ids.data(), shape).is_ok());
    Status masked = batched->set_attention_mask(ElementType::kI32, mask.data(), shape);
    REQUIRE_MESSAGE(masked.is_ok(), masked.message());
    Status ran = batched->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    const std::vector<float> got = output_of(*batched, "last_hidden_state");
    REQUIRE(got.size() == want.size());

    size_t rows = 0;
    for (const auto& s : sequences) rows += s.size();
    const size_t width = got.size() / rows;
    for (size_t r = 0; r < rows; ++r) {
      double scale = 0;
      for (size_t j = 0; j < width; ++j)
        scale = std::max(scale, std::fabs(double(want[r * width + j])));
      for (size_t j = 0; j < width; ++j) {
        const double diff = std::fabs(double(got[r * width + j]) - want[r * width + j]);
        if (!(diff <= kBatchRtol * scale))
          FAIL_CHECK(fixture << ": packed row " << r << " column " << j << " got "
                             << got[r * width + j] << ", want " << want[r * width + j]);
      }
    }
  }
}

// One row per sequence (a classifier's logits, a pooled embedding): the
// fixture's text cases (with their token types where the model takes them)
// in one ragged batch against their separate runs.
void check_per_sequence(const std::string& fixture, const ModelBuildOptions& options,
                        const char* output, int32_t pad_id) {
  auto f = test::read_encoder_fixture(fixture);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  std::vector<const test::EncoderCase*> cases;
  for (const test::EncoderCase& c : f.value().cases)
    if (!c.ids.empty()) cases.push_back(&c);
  REQUIRE(cases.size() >= 3);
  for (bool fuse : {true, false}) {
    CAPTURE(fuse);
    auto model = test::build_fixture_model(f.value().dir, options, fuse);
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    REQUIRE_MESSAGE(model.value()->batch_refusal().empty(), model.value()->batch_refusal());
    bool types = false;
    for (const TensorInfo& input : model.value()->inputs()) types |= input.name == "token_type_ids";
    auto single = batch_session(model.value(), 1);
    auto batched = batch_session(model.value(), cases.size());

    std::vector<std::vector<float>> want;
    size_t padded = 0;
    for (const test::EncoderCase* c : cases) {
      auto row = test::run_ids(*single, c->ids, output, types ? c->types : std::vector<int32_t>{});
      REQUIRE_MESSAGE(row.is_ok(), row.status().message());
      want.push_back(row.value());
      padded = std::max(padded, c->ids.size());
    }
    const size_t batch = cases.size();
    std::vector<int32_t> ids(batch * padded, pad_id), type_ids(batch * padded, 0),
        mask(batch * padded, 0);
    for (size_t b = 0; b < batch; ++b)
      for (size_t i = 0; i < cases[b]->ids.size(); ++i) {
        ids[b * padded + i] = cases[b]->ids[i];
        if (types && !cases[b]->types.empty()) type_ids[b * padded + i] = cases[b]->types[i];
        mask[b * padded + i] = 1;
      }
    const TensorShape shape = TensorShape::of({batch, padded});
    REQUIRE(batched->set_input("input_ids", ElementType::kI32, ids.data(), shape).is_ok());
    if (types) {
      REQUIRE(
          batched->set_input("token_type_ids", ElementType::kI32, type_ids.data(), shape).is_ok());
    }
    REQUIRE(batched->set_attention_mask(ElementType::kI32, mask.data(), shape).is_ok());
    Status ran = batched->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    const std::vector<float> got = output_of(*batched, output);
    const size_t width = want[0].size();
    REQUIRE(got.size() == batch * width);
    for (size_t b = 0; b < batch; ++b) {
      CAPTURE(cases[b]->label);
      double scale = 0;
      for (float v : want[b]) scale = std::max(scale, std::fabs(double(v)));
      for (size_t j = 0; j < width; ++j) {
        const double diff = std::fabs(double(got[b * width + j]) - want[b][j]);
        if (!(diff <= kBatchRtol * scale))
          FAIL_CHECK(fixture << ": sequence " << b << " column " << j << " got "
                             << got[b * width + j] << ", want " << want[b][j]);
      }
    }
  }
}

ModelBuildOptions pooled(const char* mode) {
  ModelBuildOptions options;
  options.pooling.mode = mode;
  return options;
}

}  // namespace

TEST_SUITE("encoder_batch") {
  TEST_CASE("sequence classifiers run batched: each sequence's logits equal its own run") {
    check_per_sequence("tiny_bert_cls", {}, "logits", 0);  // pairs with token types
    check_per_sequence("tiny_xlmr_cls", {}, "logits", 1);
    check_per_sequence("tiny_distilbert_cls", {}, "logits", 0);
  }
  TEST_CASE("CLS and max pooling run batched: each sequence's embedding equals its own run") {
    for (const char* mode : {"cls", "max", "mean"}) {
      CAPTURE(mode);
      check_per_sequence("tiny_roberta", pooled(mode), "embedding", 1);
    }
  }

  TEST_CASE("RoBERTa: a ragged batch equals separate runs (positions restart per sequence)") {
    check_family("tiny_roberta", 1);
  }
  TEST_CASE("XLM-R: a ragged batch equals separate runs") { check_family("tiny_xlmr", 1); }
  TEST_CASE("DistilBERT: a ragged batch equals separate runs") {
    check_family("tiny_distilbert", 0);
  }
  TEST_CASE("MPNet: a ragged batch equals separate runs (relative positions per sequence)") {
    check_family("tiny_mpnet", 1);
  }
}

}  // namespace normrt
