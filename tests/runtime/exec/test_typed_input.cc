// Typed inputs (Session::set_input with an ElementType and a shape): int64
// token ids, as Hugging Face tokenizers and ONNX Runtime hold them, are
// range-checked and converted, never read as pairs of int32; a type that
// cannot feed the input is refused by name; the shape is checked against the
// model's; and binding int64 ids then running allocates nothing.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "runtime_test_graphs.h"
#include "tests/support/allocation_counter.h"

namespace normrt {
namespace {

constexpr int64_t kRows = 50, kWidth = 4, kMaxS = 16;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// "ids" i32 [S] → the rows of a [50, 4] table whose row v is v + 0.25·d, so
// the output says which ids were looked up → "embedding" [S, 4]; S ≤ 16.
std::shared_ptr<const Model> lookup_model() {
  std::vector<float> table;
  for (int64_t v = 0; v < kRows; ++v)
    for (int64_t d = 0; d < kWidth; ++d) table.push_back(static_cast<float>(v) + 0.25f * d);
  GraphBuilder b;
  TensorId ids = b.input("ids", DataType::kI32, {kSequenceDim});
  TensorId rows = b.weight("table", {kRows, kWidth}, table);
  TensorId out = b.node(OpType::kEmbedding, "lookup", {ids, rows}, {{kSequenceDim, kWidth}});
  b.rename(out, "embedding");
  b.output(out);
  auto model = compile_model(b.finish(kMaxS), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

// The ids the output rows came from (column 0 of each row), after a run.
std::vector<int64_t> looked_up(const Session& session) {
  auto out = session.output("embedding");
  REQUIRE(out.is_ok());
  REQUIRE(out->shape.size() == 2);
  std::vector<int64_t> ids;
  for (size_t i = 0; i < out->shape[0]; ++i) {
    for (size_t d = 0; d < kWidth; ++d)
      REQUIRE(out->f32()[i * kWidth + d] == out->f32()[i * kWidth] + 0.25f * d);
    ids.push_back(static_cast<int64_t>(out->f32()[i * kWidth]));
  }
  return ids;
}

TensorShape shape_of(std::initializer_list<size_t> dims) { return TensorShape::of(dims); }

}  // namespace

TEST_SUITE("typed inputs") {
  TEST_CASE("int64 ids are converted, not read as pairs of int32") {
    auto session = Session::create(lookup_model());
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    std::vector<int64_t> ids = {3, 1, 4, 1, 5, 49, 0};
    REQUIRE(s.set_input("ids", ElementType::kI64, ids.data(), shape_of({ids.size()})).is_ok());
    // Converted at set_input: the caller's buffer may change or go away.
    std::vector<int64_t> expected = ids;
    ids.assign(ids.size(), 7);
    REQUIRE(s.run().is_ok());
    CHECK(looked_up(s) == expected);

    const std::vector<int32_t> ids32 = {2, 7, 1, 8};
    REQUIRE(s.set_input("ids", ElementType::kI32, ids32.data(), shape_of({4})).is_ok());
    REQUIRE(s.run().is_ok());
    CHECK(looked_up(s) == std::vector<int64_t>{2, 7, 1, 8});
  }

  TEST_CASE("int64 values outside int32 are refused with their index; nothing is bound") {
    auto session = Session::create(lookup_model());
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    const int64_t big = int64_t{1} << 40;
    const int64_t low = int64_t{std::numeric_limits<int32_t>::min()} - 1;
    for (auto [value, text] :
         {std::pair<int64_t, std::string>{big, "1099511627776"}, {low, "-2147483649"}}) {
      const std::vector<int64_t> ids = {3, value, 4};
      Status bound = s.set_input("ids", ElementType::kI64, ids.data(), shape_of({3}));
      REQUIRE_FALSE(bound.is_ok());
      const std::string& message = bound.message();
      CHECK_MESSAGE(contains(message, "'ids' value " + text + " at index 1"), message);
      CHECK_MESSAGE(contains(message, "is outside the i32 range"), message);
    }
    CHECK(contains(s.run().message(), "'ids' is not set"));
    // INT32_MIN and INT32_MAX themselves fit (the Embedding then refuses them as ids).
    const std::vector<int64_t> edges = {std::numeric_limits<int32_t>::min(),
                                        std::numeric_limits<int32_t>::max()};
    CHECK(s.set_input("ids", ElementType::kI64, edges.data(), shape_of({2})).is_ok());
    CHECK(contains(s.run().message(), "out of range"));
  }

  TEST_CASE("a type that cannot feed the input is refused, naming both") {
    auto session = Session::create(lookup_model());
    REQUIRE(session.is_ok());
    const std::vector<float> floats = {1, 2, 3};
    Status bound =
        session.value()->set_input("ids", ElementType::kF32, floats.data(), shape_of({3}));
    CHECK_MESSAGE(
        contains(bound.message(), "f32 data cannot feed input 'ids' [S] i32 (give i32 or i64)"),
        bound.message());

    auto mixed = compile_model(test::mixed_blocks(test::mixed_blocks_weights(48, 3), 8, false), {});
    REQUIRE(mixed.is_ok());
    auto float_session = Session::create(mixed.value());
    REQUIRE(float_session.is_ok());
    const std::vector<int64_t> ids(2 * 48, 1);
    bound = float_session.value()->set_input("x", ElementType::kI64, ids.data(), shape_of({2, 48}));
    CHECK_MESSAGE(
        contains(bound.message(), "i64 data cannot feed input 'x' [S, 48] f32 (give f32)"),
        bound.message());
    const std::vector<float> x = test::random_values(2 * 48, 1.0f, 4);
    CHECK(float_session.value()
              ->set_input("x", ElementType::kF32, x.data(), shape_of({2, 48}))
              .is_ok());
    CHECK(float_session.value()->run().is_ok());
  }

  TEST_CASE("the shape must be the input's, with S in [1, max]") {
    auto session = Session::create(lookup_model());
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    const std::vector<int64_t> ids(20, 1);
    for (const TensorShape& bad :
         {shape_of({0}), shape_of({17}), shape_of({4, 1}), shape_of({}), TensorShape{}}) {
      CAPTURE(bad.size());
      Status bound = s.set_input("ids", ElementType::kI64, ids.data(), bad);
      REQUIRE_FALSE(bound.is_ok());
      CHECK_MESSAGE(contains(bound.message(), "does not fit input 'ids' [S] i32 (1 ≤ S ≤ 16)"),
                    bound.message());
    }
    CHECK(contains(s.set_input("ids", ElementType::kI64, nullptr, shape_of({2})).message(),
                   "data is null"));
    CHECK(contains(s.set_input("tokens", ElementType::kI64, ids.data(), shape_of({2})).message(),
                   "no input 'tokens' (inputs: ids)"));
    CHECK(s.set_input("ids", ElementType::kI64, ids.data(), shape_of({16})).is_ok());
  }

  TEST_CASE("binding int64 ids and running allocates nothing after the first run") {
    auto session = Session::create(lookup_model());
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    const std::vector<int64_t> ids = {5, 6, 7, 8, 9};
    REQUIRE(s.set_input("ids", ElementType::kI64, ids.data(), shape_of({5})).is_ok());
    REQUIRE(s.run().is_ok());
    testing::start_counting_allocations();
    for (int run = 0; run < 10; ++run) {
      Status bound = s.set_input("ids", ElementType::kI64, ids.data(), shape_of({5}));
      Status ran = s.run();
      CHECK(bound.is_ok());
      CHECK(ran.is_ok());
    }
    CHECK(testing::stop_counting_allocations() == 0);
  }

  TEST_CASE("element_type_name") {
    CHECK(std::string(element_type_name(ElementType::kF32)) == "f32");
    CHECK(std::string(element_type_name(ElementType::kI32)) == "i32");
    CHECK(std::string(element_type_name(ElementType::kI64)) == "i64");
  }
}

}  // namespace normrt
