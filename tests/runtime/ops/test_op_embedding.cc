// Embedding: token rows and position rows, f32 and bf16 tables, row offsets;
// an id or position outside the table is a run() error naming the node, the
// index, the value and V.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

// The expected output: table rows, exact copies (bf16 widened exactly).
std::vector<float> gather(const std::vector<float>& table, size_t width,
                          const std::vector<int64_t>& rows) {
  std::vector<float> out;
  for (int64_t row : rows) {
    out.insert(out.end(), table.begin() + row * width, table.begin() + (row + 1) * width);
  }
  return out;
}

struct EmbeddingGraph {
  OpHarness h;
  TensorId ids = kNoTensor, table, y;
  std::vector<float> values;  // the table as the kernel must see it
  EmbeddingGraph(size_t v, size_t d, bool bf16, std::vector<Attribute> attributes = {},
                 bool positions = false) {
    values = random_floats(v * d, -2, 2, 41);
    if (bf16) values = from_bf16(to_bf16(values));
    const Shape table_shape = {int64_t(v), int64_t(d)};
    table = bf16 ? h.weight_bf16("tok_emb", table_shape, to_bf16(values))
                 : h.weight("tok_emb", table_shape, values);
    y = h.intermediate("y", {kSequenceDim, int64_t(d)});
    if (positions) {
      attributes.push_back({"positions", int64_t{1}});
      h.node(OpType::kEmbedding, "emb", {table}, {y}, std::move(attributes));
    } else {
      ids = h.input("ids", {kSequenceDim}, DataType::kI32);
      h.node(OpType::kEmbedding, "emb", {ids, table}, {y}, std::move(attributes));
    }
  }
};

}  // namespace

TEST_SUITE("embedding_ops") {
  TEST_CASE("token rows are copied exactly from f32 and bf16 tables") {
    for (bool bf16 : {false, true}) {
      for (auto [v, d] : {std::pair{1, 1}, {3, 17}, {257, 3}, {1000, 65}}) {
        INFO("V " << v << " D " << d << " bf16 " << bf16);
        EmbeddingGraph g(v, d, bf16);
        Status valid = g.h.validate();
        REQUIRE_MESSAGE(valid.is_ok(), valid.message());
        auto kernel = g.h.create();
        REQUIRE(kernel.is_ok());
        std::vector<int32_t> ids = {0, int32_t(v) - 1, int32_t(v) / 2, 0, int32_t(v) - 1};
        g.h.set_i32(g.ids, ids);
        REQUIRE(g.h.run(**kernel, ids.size()).is_ok());
        CHECK(g.h.get(g.y) == gather(g.values, d, {ids.begin(), ids.end()}));
      }
    }
  }

  TEST_CASE("ids of rank 2 give [.., D]; row_offset shifts every id") {
    OpHarness h;
    TensorId ids = h.input("ids", {2, kSequenceDim}, DataType::kI32);
    std::vector<float> table = random_floats(10 * 4, -1, 1, 42);
    TensorId t = h.weight("t", {10, 4}, table);
    TensorId y = h.intermediate("y", {2, kSequenceDim, 4});
    h.node(OpType::kEmbedding, "emb", {ids, t}, {y}, {{"row_offset", int64_t{2}}});
    Status valid = h.validate();
    REQUIRE_MESSAGE(valid.is_ok(), valid.message());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set_i32(ids, {-2, 0, 7, 3, 5, 1});
    REQUIRE(h.run(**kernel, 3).is_ok());
    CHECK(h.get(y) == gather(table, 4, {0, 2, 9, 5, 7, 3}));
  }

  TEST_CASE("position rows start at the session position") {
    for (bool bf16 : {false, true}) {
      EmbeddingGraph g(40, 9, bf16, {}, /*positions=*/true);
      Status valid = g.h.validate();
      REQUIRE_MESSAGE(valid.is_ok(), valid.message());
      auto kernel = g.h.create();
      REQUIRE(kernel.is_ok());
      REQUIRE(g.h.run(**kernel, 5, 0).is_ok());
      CHECK(g.h.get(g.y) == gather(g.values, 9, {0, 1, 2, 3, 4}));
      REQUIRE(g.h.run(**kernel, 1, 39).is_ok());  // the last row of the table
      CHECK(g.h.get(g.y) == gather(g.values, 9, {39}));
    }
    EmbeddingGraph shifted(40, 9, false, {{"row_offset", int64_t{2}}}, true);  // RoBERTa-style
    auto kernel = shifted.h.create();
    REQUIRE(kernel.is_ok());
    REQUIRE(shifted.h.run(**kernel, 3, 10).is_ok());
    CHECK(shifted.h.get(shifted.y) == gather(shifted.values, 9, {12, 13, 14}));
  }

  TEST_CASE("padding_idx counts positions from the ids along the last axis, skipping padding") {
    // RoBERTa's create_position_ids_from_input_ids: mask = ids != P,
    // position = cumsum(mask) * mask + P, per row of ids [B, S].
    const int64_t pad = 1;
    for (int64_t offset : {int64_t{0}, int64_t{3}}) {
      OpHarness h;
      TensorId ids = h.input("ids", {2, kSequenceDim}, DataType::kI32);
      std::vector<float> table = random_floats(20 * 5, -1, 1, 43);
      TensorId t = h.weight("pos", {20, 5}, table);
      TensorId y = h.intermediate("y", {2, kSequenceDim, 5});
      h.node(OpType::kEmbedding, "emb", {ids, t}, {y},
             {{"padding_idx", pad}, {"row_offset", offset}});
      Status valid = h.validate();
      REQUIRE_MESSAGE(valid.is_ok(), valid.message());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      const std::vector<int32_t> values = {0, 7, 1, 9, 1, 2,   // row 0: padding inside
                                           1, 1, 4, 4, 4, 1};  // row 1: leading padding
      h.set_i32(ids, values);
      REQUIRE(h.run(**kernel, 6).is_ok());
      std::vector<int64_t> rows;
      for (size_t b = 0; b < 2; ++b) {
        int64_t seen = 0;
        for (size_t s = 0; s < 6; ++s) {
          const bool real = values[b * 6 + s] != pad;
          seen += real;
          rows.push_back(pad + (real ? seen : 0) + offset);
        }
      }
      CHECK(rows == std::vector<int64_t>{2 + offset, 3 + offset, 1 + offset, 4 + offset, 1 + offset,
                                         5 + offset, 1 + offset, 1 + offset, 2 + offset, 3 + offset,
                                         4 + offset, 1 + offset});
      CHECK(h.get(y) == gather(table, 5, rows));
    }
  }

  TEST_CASE("padding_idx positions past the table are an error naming the position") {
    EmbeddingGraph g(6, 3, false, {{"padding_idx", int64_t{1}}});
    auto kernel = g.h.create();
    REQUIRE(kernel.is_ok());
    g.h.set_i32(g.ids, {0, 5, 5, 5});  // positions 2..5 fit
    Status fits = g.h.run(**kernel, 4);
    REQUIRE_MESSAGE(fits.is_ok(), fits.message());
    g.h.set_i32(g.ids, {0, 5, 5, 5, 5});  // position 6 does not
    CHECK(g.h.run(**kernel, 5).message() ==
          "node 'emb' (Embedding): position 6 of ids[4] (padding_idx 1) is out of range for "
          "table 'tok_emb' of V = 6 rows");
  }

  TEST_CASE("an id outside the table is an error naming the node, the index, the value and V") {
    EmbeddingGraph g(50, 4, false);
    auto kernel = g.h.create();
    REQUIRE(kernel.is_ok());
    g.h.set_i32(g.ids, {3, 49, 50});
    Status s = g.h.run(**kernel, 3);
    CHECK(s.message() ==
          "node 'emb' (Embedding): ids[2] = 50 is out of range for table 'tok_emb' of V = 50 rows");
    g.h.set_i32(g.ids, {-1});
    s = g.h.run(**kernel, 1);
    CHECK(contains(s.message(), "ids[0] = -1 is out of range"));
    g.h.set_i32(g.ids, {int32_t(0x7FFFFFFF)});
    CHECK(contains(g.h.run(**kernel, 1).message(), "ids[0] = 2147483647"));

    EmbeddingGraph offset(50, 4, false, {{"row_offset", int64_t{-3}}});
    auto shifted = offset.h.create();
    REQUIRE(shifted.is_ok());
    offset.h.set_i32(offset.ids, {3, 2});
    CHECK(contains(offset.h.run(**shifted, 2).message(),
                   "ids[1] = 2 (+ row_offset -3 = row -1) is out of range"));
  }

  TEST_CASE("a position past the table is an error naming the position and V") {
    EmbeddingGraph g(16, 4, true, {}, /*positions=*/true);
    auto kernel = g.h.create();
    REQUIRE(kernel.is_ok());
    Status s = g.h.run(**kernel, 4, 14);
    CHECK(s.message() ==
          "node 'emb' (Embedding): position 16 (session position 14 + row 2) is out of range for "
          "table 'tok_emb' of V = 16 rows");
  }

  TEST_CASE("bad operands and attributes are rejected") {
    OpHarness h;
    TensorId ids = h.input("ids", {kSequenceDim}, DataType::kI32);
    TensorId fids = h.input("fids", {kSequenceDim});
    TensorId t = h.weight("t", {10, 4}, std::vector<float>(40, 0.0f));
    TensorId t_in = h.input("t_in", {10, 4});
    TensorId t3 = h.weight("t3", {2, 5, 4}, std::vector<float>(40, 0.0f));
    TensorId y = h.intermediate("y", {kSequenceDim, 4});
    h.node(OpType::kEmbedding, "emb", {fids, t}, {y});
    auto error = [&](std::vector<TensorId> inputs, std::vector<Attribute> attributes = {}) {
      h.graph.nodes.back().inputs = std::move(inputs);
      h.graph.nodes.back().attributes = std::move(attributes);
      Status s = h.infer();
      CHECK(s.is_ok() == h.create().is_ok());
      return s.message();
    };
    CHECK(contains(error({fids, t}),
                   "node 'emb' (Embedding): operand 0 (ids) 'fids' must be i32, found f32"));
    CHECK(contains(error({ids, t_in}),
                   "operand 1 (table) 't_in' must be a weight tensor, found input"));
    CHECK(contains(error({ids, t3}), "operand 1 (table) 't3' must have shape [V, D]"));
    CHECK(contains(error({t}), "the operands are (ids, table): expected 2, found 1"));
    CHECK(contains(error({ids, t}, {{"positions", int64_t{1}}}),
                   "with positions = 1 the operands are (table): expected 1, found 2"));
    CHECK(contains(error({t}, {{"positions", int64_t{2}}}),
                   "attribute 'positions' must be 0 or 1, found 2"));
    CHECK(contains(error({ids, t}, {{"offset", int64_t{2}}}),
                   "unknown attribute 'offset' (Embedding takes positions, row_offset, "
                   "padding_idx)"));
    CHECK(
        contains(error({t}, {{"positions", int64_t{1}}, {"padding_idx", int64_t{1}}}),
                 "attribute 'padding_idx' counts positions from the ids: it needs positions = 0"));
    CHECK(contains(error({ids, t}, {{"padding_idx", int64_t{-1}}}),
                   "attribute 'padding_idx' must be within [0, 2^40], found -1"));
    CHECK(contains(error({ids, t}, {{"row_offset", 1.5}}),
                   "attribute 'row_offset' must be an int, found float"));
  }
}

}  // namespace normrt::testing
