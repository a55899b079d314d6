// Batches through the encoder families built on BERT's graph: each
// fixture's sequences, right-padded into input_ids [B, S] with an attention
// mask, give the rows of B separate runs (those are checked against
// transformers in test_encoder_families.cc). RoBERTa and XLM-R count their
// positions from the ids (padding_idx), so a packed batch must restart that
// count at every sequence; a pad id inside a sequence must not move it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "encoder_fixture.h"
#include "tests/support/compare.h"

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

// An output's values and the length of its rows (its last dimension).
std::vector<float> output_of(const Session& session, const char* name, size_t* width) {
  auto out = session.output(name);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  const TensorShape& shape = out.value().shape;
  REQUIRE(shape.size() != 0);
  *width = shape[shape.size() - 1];
  return {out.value().f32(), out.value().f32() + out.value().elements()};
}

// One sequence of a batch: its ids and token types (empty: none given).
struct BatchSequence {
  std::string label;
  std::vector<int32_t> ids, types;
};

// The fixture's id sequences without token types, longest last, with one of
// length 1 first.
std::vector<BatchSequence> token_sequences(const test::EncoderFixture& f) {
  std::vector<BatchSequence> all;
  for (const test::EncoderCase& c : f.cases)
    if (c.types.empty() && !c.ids.empty()) all.push_back({c.label, c.ids, {}});
  REQUIRE(all.size() >= 2);
  all.insert(all.begin(), BatchSequence{"one token", {all[0].ids[0]}, {}});
  return all;
}

// The fixture's text cases, with their token types.
std::vector<BatchSequence> text_cases(const test::EncoderFixture& f) {
  std::vector<BatchSequence> all;
  for (const test::EncoderCase& c : f.cases)
    if (!c.ids.empty()) all.push_back({c.label, c.ids, c.types});
  REQUIRE(all.size() >= 3);
  return all;
}

// `sequences` right-padded with `pad_id` into one batch with a mask, fused and
// unfused: `output` must hold each sequence's separate run (its token types
// where the model takes them), one after the other, every row within
// kBatchRtol of that row's largest value.
void check_batch_equals_separate_runs(const std::string& fixture, const std::string& dir,
                                      const std::vector<BatchSequence>& sequences,
                                      const ModelBuildOptions& options, const char* output,
                                      int32_t pad_id) {
  for (bool fuse : {true, false}) {
    CAPTURE(fuse);
    auto model = test::build_fixture_model(dir, options, fuse);
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    REQUIRE_MESSAGE(model.value()->batch_refusal().empty(), model.value()->batch_refusal());
    bool types = false;
    for (const TensorInfo& input : model.value()->inputs()) types |= input.name == "token_type_ids";
    auto single = batch_session(model.value(), 1);
    auto batched = batch_session(model.value(), sequences.size());

    // Each sequence's own run: [first value, end) of the batch's output.
    std::vector<float> want;
    std::vector<size_t> ends;
    size_t padded = 0;
    for (const BatchSequence& s : sequences) {
      auto values = test::run_ids(*single, s.ids, output, types ? s.types : std::vector<int32_t>{});
      REQUIRE_MESSAGE(values.is_ok(), values.status().message());
      want.insert(want.end(), values.value().begin(), values.value().end());
      ends.push_back(want.size());
      padded = std::max(padded, s.ids.size());
    }
    const size_t batch = sequences.size();
    std::vector<int32_t> ids(batch * padded, pad_id), type_ids(batch * padded, 0),
        mask(batch * padded, 0);
    for (size_t b = 0; b < batch; ++b)
      for (size_t i = 0; i < sequences[b].ids.size(); ++i) {
        ids[b * padded + i] = sequences[b].ids[i];
        if (types && !sequences[b].types.empty()) type_ids[b * padded + i] = sequences[b].types[i];
        mask[b * padded + i] = 1;
      }
    const TensorShape shape = TensorShape::of({batch, padded});
    REQUIRE(batched->set_input("input_ids", ElementType::kI32, ids.data(), shape).is_ok());
    if (types) {
      REQUIRE(
          batched->set_input("token_type_ids", ElementType::kI32, type_ids.data(), shape).is_ok());
    }
    Status masked = batched->set_attention_mask(ElementType::kI32, mask.data(), shape);
    REQUIRE_MESSAGE(masked.is_ok(), masked.message());
    Status ran = batched->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    size_t width = 0;
    const std::vector<float> got = output_of(*batched, output, &width);
    REQUIRE(got.size() == want.size());

    for (size_t b = 0, begin = 0; b < batch; begin = ends[b++]) {
      CAPTURE(sequences[b].label);
      const test::Comparison c = test::compare_rows(got.data() + begin, want.data() + begin,
                                                    (ends[b] - begin) / width, width, kBatchRtol);
      CHECK_MESSAGE(c.ok(), fixture << ": sequence " << b << ": " << c.first_failure);
    }
  }
}

// Every token's row of last_hidden_state.
void check_family(const std::string& fixture, int32_t pad_id) {
  auto f = test::read_encoder_fixture(fixture);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  check_batch_equals_separate_runs(fixture, f.value().dir, token_sequences(f.value()), {},
                                   "last_hidden_state", pad_id);
}

// One row per sequence (a classifier's logits, a pooled embedding): the
// fixture's text cases (with their token types where the model takes them)
// in one ragged batch against their separate runs.
void check_per_sequence(const std::string& fixture, const ModelBuildOptions& options,
                        const char* output, int32_t pad_id) {
  auto f = test::read_encoder_fixture(fixture);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  check_batch_equals_separate_runs(fixture, f.value().dir, text_cases(f.value()), options, output,
                                   pad_id);
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
