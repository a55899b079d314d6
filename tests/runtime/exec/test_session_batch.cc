// The executor's batches (runtime/exec/batch_support.h) on graphs without
// BERT: a row-wise graph takes [B, S, d] and gives the double reference's
// rows per sequence; memory grows with max_batch; a graph with state
// refuses batches with its reason; B = 1 as [1, S] works on any graph; a
// batched run allocates nothing. (Attention, positions and pooling across a
// batch: tests/models/transformer/test_bert_batch.cc.)
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime_test_graphs.h"
#include "tests/support/allocation_counter.h"

namespace normrt {
namespace {

constexpr size_t kD = 24, kMaxS = 12;

std::shared_ptr<const Model> blocks_model(const test::MixedBlocksWeights& weights) {
  auto model = compile_model(test::mixed_blocks(weights, kMaxS, false), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("session batches") {
  TEST_CASE("a row-wise graph runs [B, S, d] as B sequences, each as the double reference") {
    const auto weights = test::mixed_blocks_weights(kD, 3);
    auto model = blocks_model(weights);
    CHECK(model->batch_refusal().empty());
    SessionOptions options;
    options.max_batch = 5;
    auto session = Session::create(model, options);
    REQUIRE(session.is_ok());
    for (auto [batch, length] : {std::pair<size_t, size_t>{5, 12}, {3, 1}, {1, 7}, {5, 3}}) {
      CAPTURE(batch);
      CAPTURE(length);
      const auto x = test::random_values(batch * length * kD, 1.0f, uint32_t(batch * 100 + length));
      REQUIRE(
          session.value()
              ->set_input("x", ElementType::kF32, x.data(), TensorShape::of({batch, length, kD}))
              .is_ok());
      REQUIRE(session.value()->run().is_ok());
      auto out = session.value()->output("out");
      REQUIRE(out.is_ok());
      REQUIRE(out.value().shape.size() == 2);
      CHECK(out.value().shape[0] == batch * length);
      for (size_t b = 0; b < batch; ++b) {
        const std::vector<float> one(x.begin() + b * length * kD,
                                     x.begin() + (b + 1) * length * kD);
        const auto want = test::mixed_blocks_reference(weights, false, one, length);
        for (size_t i = 0; i < want.size(); ++i) {
          const double got = out.value().f32()[b * length * kD + i];
          REQUIRE_MESSAGE(
              std::fabs(got - want[i]) <= 1e-5 + 1e-4 * std::fabs(want[i]),
              "sequence " << b << " index " << i << " got " << got << " want " << want[i]);
        }
      }
    }
  }

  TEST_CASE("a batched run allocates nothing after the first") {
    auto model = blocks_model(test::mixed_blocks_weights(kD, 4));
    SessionOptions options;
    options.max_batch = 4;
    auto session = Session::create(model, options);
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    const auto x = test::random_values(4 * 6 * kD, 1.0f, 9);
    const std::vector<int32_t> mask(4 * 6, 1);
    REQUIRE(s.set_input("x", ElementType::kF32, x.data(), TensorShape::of({4, 6, kD})).is_ok());
    REQUIRE(s.run().is_ok());
    testing::start_counting_allocations();
    for (int run = 0; run < 5; ++run) {
      CHECK(s.set_input("x", ElementType::kF32, x.data(), TensorShape::of({4, 6, kD})).is_ok());
      CHECK(s.set_attention_mask(ElementType::kI32, mask.data(), TensorShape::of({4, 6})).is_ok());
      CHECK(s.run().is_ok());
    }
    CHECK(testing::stop_counting_allocations() == 0);
  }

  TEST_CASE("a graph with state runs one sequence at a time, and says why") {
    auto model = compile_model(test::running_sum(4), {});
    REQUIRE(model.is_ok());
    CHECK_MESSAGE(contains(std::string(model.value()->batch_refusal()), "keeps state ('h')"),
                  model.value()->batch_refusal());
    SessionOptions options;
    options.max_batch = 2;
    auto refused = Session::create(model.value(), options);
    REQUIRE_FALSE(refused.is_ok());
    CHECK(contains(refused.status().message(), "runs one sequence at a time"));
  }

  TEST_CASE("a Slice of S rows batches for the first token only, and says why otherwise") {
    // x [S, 4] → its rows [begin, end) (no end: to the end of S); only [0, 1)
    // is each sequence's own row in a batch.
    auto refusal = [](int64_t begin, std::optional<int64_t> end, int64_t rows) {
      GraphBuilder b;
      const TensorId x = b.input("x", DataType::kF32, {kSequenceDim, 4});
      std::vector<Attribute> attributes = {{"axis", int64_t{0}}, {"begin", begin}};
      if (end) attributes.push_back({"end", *end});
      b.output(b.node(OpType::kSlice, "take", {x}, {{rows, 4}}, attributes));
      auto model = compile_model(b.finish(8), {});
      REQUIRE_MESSAGE(model.is_ok(), model.status().message());
      return std::string(model.value()->batch_refusal());
    };
    CHECK(refusal(0, 1, 1).empty());
    const std::string last = refusal(-1, std::nullopt, 1);  // the last token
    CHECK_MESSAGE(contains(last, "slices other than each sequence's first token"), last);
    const std::string none = refusal(0, 0, 0);  // no row at all: not one per sequence
    CHECK_MESSAGE(contains(none, "'take:0' [0, 4] is neither S rows"), none);
  }

  TEST_CASE("[1, S] is a batch of one on any graph; more than max_batch is refused") {
    auto model = blocks_model(test::mixed_blocks_weights(kD, 5));
    auto session = Session::create(model);  // max_batch 1
    REQUIRE(session.is_ok());
    const auto x = test::random_values(2 * 3 * kD, 1.0f, 11);
    CHECK(session.value()
              ->set_input("x", ElementType::kF32, x.data(), TensorShape::of({1, 3, kD}))
              .is_ok());
    CHECK(session.value()->run().is_ok());
    Status two =
        session.value()->set_input("x", ElementType::kF32, x.data(), TensorShape::of({2, 3, kD}));
    CHECK(contains(two.message(), "a batch of 2 sequences > the session's max_batch 1"));
    SessionOptions huge;
    huge.max_batch = size_t{1} << 40;
    CHECK_FALSE(Session::create(model, huge).is_ok());
  }
}

}  // namespace normrt
