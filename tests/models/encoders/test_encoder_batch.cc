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

// `sequences` right-padded with `pad_id` into input_ids [B, S], their token
// types and a mask of their lengths; a sequence without ids is a row of
// padding, its mask all 0. The session reads these buffers when it runs:
// keep the batch alive until then.
struct PaddedBatch {
  TensorShape shape;
  std::vector<int32_t> ids, types, mask;
};

PaddedBatch bind_padded_batch(Session& batched, const std::vector<BatchSequence>& sequences,
                              int32_t pad_id, bool types) {
  size_t padded = 1;
  for (const BatchSequence& s : sequences) padded = std::max(padded, s.ids.size());
  const size_t batch = sequences.size();
  PaddedBatch p{TensorShape::of({batch, padded}), std::vector<int32_t>(batch * padded, pad_id),
                std::vector<int32_t>(batch * padded, 0), std::vector<int32_t>(batch * padded, 0)};
  for (size_t b = 0; b < batch; ++b)
    for (size_t i = 0; i < sequences[b].ids.size(); ++i) {
      p.ids[b * padded + i] = sequences[b].ids[i];
      if (types && !sequences[b].types.empty()) p.types[b * padded + i] = sequences[b].types[i];
      p.mask[b * padded + i] = 1;
    }
  REQUIRE(batched.set_input("input_ids", ElementType::kI32, p.ids.data(), p.shape).is_ok());
  if (types) {
    REQUIRE(
        batched.set_input("token_type_ids", ElementType::kI32, p.types.data(), p.shape).is_ok());
  }
  Status masked = batched.set_attention_mask(ElementType::kI32, p.mask.data(), p.shape);
  REQUIRE_MESSAGE(masked.is_ok(), masked.message());
  return p;
}

bool takes_token_types(const Model& model) {
  for (const TensorInfo& input : model.inputs())
    if (input.name == "token_type_ids") return true;
  return false;
}

// What `output` holds per sequence: a row per token (last_hidden_state,
// packed) or one row (a pooled embedding, a classifier's logits).
enum class Rows { kPerToken, kPerSequence };

// `sequences` right-padded with `pad_id` into one batch with a mask, fused and
// unfused: `output` must hold each sequence's separate run (its token types
// where the model takes them), one after the other, every row within
// kBatchRtol of that row's largest value. A sequence without ids (all
// padding) has no token row, and as its one row zeros: sentence-transformers'
// mean pooling over no token, Σ / max(0, 1e-9) (only mean pooling gives it
// a row; the other per-sequence heads refuse it, see below).
void check_batch_equals_separate_runs(const std::string& fixture, const std::string& dir,
                                      const std::vector<BatchSequence>& sequences,
                                      const ModelBuildOptions& options, const char* output,
                                      int32_t pad_id, Rows rows) {
  for (bool fuse : {true, false}) {
    CAPTURE(fuse);
    auto model = test::build_fixture_model(dir, options, fuse);
    REQUIRE_MESSAGE(model.is_ok(), model.status().message());
    REQUIRE_MESSAGE(model.value()->batch_refusal().empty(), model.value()->batch_refusal());
    const bool types = takes_token_types(*model.value());
    auto single = batch_session(model.value(), 1);
    auto batched = batch_session(model.value(), sequences.size());
    const PaddedBatch bound = bind_padded_batch(*batched, sequences, pad_id, types);
    Status ran = batched->run();
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    size_t width = 0;
    const std::vector<float> got = output_of(*batched, output, &width);

    // Each sequence's own run: values [begin, ends[b]) of the batch's output.
    std::vector<float> want;
    std::vector<size_t> ends;
    for (const BatchSequence& s : sequences) {
      if (s.ids.empty()) {
        if (rows == Rows::kPerSequence) want.resize(want.size() + width, 0.0f);
      } else {
        auto values =
            test::run_ids(*single, s.ids, output, types ? s.types : std::vector<int32_t>{});
        REQUIRE_MESSAGE(values.is_ok(), values.status().message());
        want.insert(want.end(), values.value().begin(), values.value().end());
      }
      ends.push_back(want.size());
    }
    REQUIRE(got.size() == want.size());

    for (size_t b = 0, begin = 0; b < sequences.size(); begin = ends[b++]) {
      CAPTURE(sequences[b].label);
      if (sequences[b].ids.empty()) {
        for (size_t i = begin; i < ends[b]; ++i)
          CHECK_MESSAGE(got[i] == 0.0f, fixture << ": all-padding sequence " << b << " column "
                                                << i - begin << " = " << got[i] << ", want 0");
        continue;
      }
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
                                   "last_hidden_state", pad_id, Rows::kPerToken);
}

// One row per sequence (a classifier's logits, a pooled embedding): the
// fixture's text cases (with their token types where the model takes them)
// in one ragged batch against their separate runs.
void check_per_sequence(const std::string& fixture, const ModelBuildOptions& options,
                        const char* output, int32_t pad_id) {
  auto f = test::read_encoder_fixture(fixture);
  REQUIRE_MESSAGE(f.is_ok(), f.status().message());
  check_batch_equals_separate_runs(fixture, f.value().dir, text_cases(f.value()), options, output,
                                   pad_id, Rows::kPerSequence);
}

// `real` with sequences of padding only (mask all 0) first, second and last.
std::vector<BatchSequence> with_all_padding(std::vector<BatchSequence> real) {
  real.insert(real.begin() + 1, BatchSequence{"all padding", {}, {}});
  real.insert(real.begin(), BatchSequence{"all padding, first", {}, {}});
  real.push_back(BatchSequence{"all padding, last", {}, {}});
  return real;
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

  // A sequence whose attention mask is all 0 has no token: the batch runs
  // without it (transformers would run its S pad tokens with a uniform
  // softmax over them, a result of the padding, not of any text).
  TEST_CASE("a sequence whose mask is all 0 has no token row; the others equal their own runs") {
    for (const auto& [name, pad_id] :
         {std::pair<const char*, int32_t>{"tiny_roberta", 1}, {"tiny_distilbert", 0}}) {
      CAPTURE(name);
      auto f = test::read_encoder_fixture(name);
      REQUIRE_MESSAGE(f.is_ok(), f.status().message());
      check_batch_equals_separate_runs(name, f.value().dir,
                                       with_all_padding(token_sequences(f.value())), {},
                                       "last_hidden_state", pad_id, Rows::kPerToken);
    }
  }
  TEST_CASE(
      "mean pooling: a sequence whose mask is all 0 gets zeros, as in sentence-transformers") {
    auto f = test::read_encoder_fixture("tiny_roberta");
    REQUIRE_MESSAGE(f.is_ok(), f.status().message());
    check_batch_equals_separate_runs("tiny_roberta", f.value().dir,
                                     with_all_padding(text_cases(f.value())), pooled("mean"),
                                     "embedding", 1, Rows::kPerSequence);
  }
  TEST_CASE(
      "CLS and max pooling and classifiers refuse a sequence whose mask is all 0, naming it") {
    struct Head {
      const char* fixture;
      ModelBuildOptions options;
      const char* output;
      int32_t pad_id;
    };
    for (const Head& head :
         {Head{"tiny_roberta", pooled("cls"), "embedding", 1},
          Head{"tiny_roberta", pooled("max"), "embedding", 1},
          Head{"tiny_bert_cls", {}, "logits", 0}, Head{"tiny_distilbert_cls", {}, "logits", 0}}) {
      CAPTURE(std::string(head.fixture));
      CAPTURE(head.options.pooling.mode);
      auto f = test::read_encoder_fixture(head.fixture);
      REQUIRE_MESSAGE(f.is_ok(), f.status().message());
      auto model = test::build_fixture_model(f.value().dir, head.options, true);
      REQUIRE_MESSAGE(model.is_ok(), model.status().message());
      const bool types = takes_token_types(*model.value());
      const std::vector<BatchSequence> real = text_cases(f.value());
      std::vector<BatchSequence> sequences = {real[0], {"all padding", {}, {}}, real[1]};
      auto batched = batch_session(model.value(), sequences.size());
      PaddedBatch bound = bind_padded_batch(*batched, sequences, head.pad_id, types);
      const Status ran = batched->run();
      CHECK_FALSE(ran.is_ok());
      const std::string message = ran.is_ok() ? "" : ran.message();
      CHECK_MESSAGE(message.find("sequence 1 of the batch has no token") != std::string::npos,
                    message);
      // The session runs the next batch as usual.
      sequences.erase(sequences.begin() + 1);
      bound = bind_padded_batch(*batched, sequences, head.pad_id, types);
      Status again = batched->run();
      CHECK_MESSAGE(again.is_ok(), again.message());
    }
  }
}

}  // namespace normrt
