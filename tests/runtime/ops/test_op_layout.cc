// Concat, Split and Slice: exact copies, checked against index arithmetic on
// the flat buffers (an element's coordinates, not the op's copy loops).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

// Shape with S resolved.
std::vector<size_t> dims_of(const Shape& shape, size_t sequence) {
  std::vector<size_t> dims;
  for (int64_t d : shape) dims.push_back(d == kSequenceDim ? sequence : size_t(d));
  return dims;
}

// Flat index of `coords` in a row-major tensor of `dims`.
size_t flat(const std::vector<size_t>& dims, const std::vector<size_t>& coords) {
  size_t index = 0;
  for (size_t i = 0; i < dims.size(); ++i) index = index * dims[i] + coords[i];
  return index;
}

// Calls visit(coords) for every element of `dims`.
template <class F>
void for_each_coordinate(const std::vector<size_t>& dims, F visit) {
  size_t total = 1;
  for (size_t d : dims) total *= d;
  std::vector<size_t> coords(dims.size());
  for (size_t n = 0; n < total; ++n) {
    size_t rest = n;
    for (size_t i = dims.size(); i-- > 0;) {
      coords[i] = rest % dims[i];
      rest /= dims[i];
    }
    visit(coords);
  }
}

// Values that identify their position: 1000·tensor + flat index.
std::vector<float> labelled(size_t count, size_t tensor) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = float(1000 * tensor + i);
  return values;
}

}  // namespace

TEST_SUITE("layout_ops") {
  TEST_CASE("Concat along each axis matches coordinate arithmetic") {
    struct Case {
      std::vector<Shape> shapes;
      int64_t axis;
      size_t sequence;
    };
    const std::vector<Case> cases = {
        {{{kSequenceDim, 3}, {kSequenceDim, 1}, {kSequenceDim, 17}}, -1, 4},
        {{{kSequenceDim, 3}, {kSequenceDim, 5}}, 1, 1},
        {{{2, 3}, {5, 3}, {1, 3}}, 0, 1},
        {{{2, kSequenceDim, 3}, {4, kSequenceDim, 3}}, 0, 3},
        {{{2, kSequenceDim, 3, 2}, {2, kSequenceDim, 1, 2}}, -2, 2},
        {{{7}}, 0, 1},
    };
    for (const Case& c : cases) {
      const size_t axis =
          c.axis < 0 ? size_t(c.axis + int64_t(c.shapes[0].size())) : size_t(c.axis);
      INFO("first operand " << shape_string(c.shapes[0]) << " axis " << c.axis);
      OpHarness h;
      std::vector<TensorId> inputs;
      Shape y_shape = c.shapes[0];
      y_shape[axis] = 0;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        inputs.push_back(h.input("x" + std::to_string(i), c.shapes[i]));
        h.set(inputs.back(), labelled(shape_elements(c.shapes[i], c.sequence), i));
        y_shape[axis] += c.shapes[i][axis];
      }
      TensorId y = h.intermediate("y", y_shape);
      h.node(OpType::kConcat, "cat", inputs, {y}, {{"axis", c.axis}});
      Status valid = h.validate();
      REQUIRE_MESSAGE(valid.is_ok(), valid.message());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      REQUIRE(h.run(**kernel, c.sequence).is_ok());
      const std::vector<float> ys = h.get(y);
      size_t offset = 0;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        const std::vector<size_t> dims = dims_of(c.shapes[i], c.sequence);
        const std::vector<size_t> y_dims = dims_of(y_shape, c.sequence);
        for_each_coordinate(dims, [&](std::vector<size_t> coords) {
          const float expected = float(1000 * i + flat(dims, coords));
          coords[axis] += offset;
          CHECK(ys[flat(y_dims, coords)] == expected);
        });
        offset += dims[axis];
      }
    }
  }

  TEST_CASE("Concat of i32 ids") {
    OpHarness h;
    TensorId a = h.input("a", {2}, DataType::kI32);
    TensorId y = h.intermediate("y", {4}, DataType::kI32);
    h.node(OpType::kConcat, "cat", {a, a}, {y});
    REQUIRE(h.validate().is_ok());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set_i32(a, {-7, 123456789});
    REQUIRE(h.run(**kernel).is_ok());
    std::vector<float> ys = h.get(y);
    std::vector<int32_t> bits(4);
    std::memcpy(bits.data(), ys.data(), 16);
    CHECK(bits == std::vector<int32_t>{-7, 123456789, -7, 123456789});
  }

  TEST_CASE("Split into equal parts and by sizes; an absent output is skipped") {
    OpHarness h;
    TensorId x = h.input("x", {kSequenceDim, 10});
    TensorId y0 = h.intermediate("y0", {kSequenceDim, 2});
    TensorId y2 = h.intermediate("y2", {kSequenceDim, 5});
    h.node(OpType::kSplit, "split", {x}, {y0, kNoTensor, y2},
           {{"sizes", std::vector<int64_t>{2, 3, 5}}});
    Status valid = h.validate();
    REQUIRE_MESSAGE(valid.is_ok(), valid.message());
    auto kernel = h.create();
    REQUIRE(kernel.is_ok());
    h.set(x, labelled(30, 0));
    REQUIRE(h.run(**kernel, 3).is_ok());
    std::vector<float> a = h.get(y0), c = h.get(y2);
    for (size_t r = 0; r < 3; ++r) {
      for (size_t j = 0; j < 2; ++j) CHECK(a[r * 2 + j] == float(r * 10 + j));
      for (size_t j = 0; j < 5; ++j) CHECK(c[r * 5 + j] == float(r * 10 + 5 + j));
    }

    OpHarness e;  // equal parts along axis 0 of [6, S, 2]
    TensorId x2 = e.input("x", {6, kSequenceDim, 2});
    std::vector<TensorId> parts;
    for (int i = 0; i < 3; ++i)
      parts.push_back(e.intermediate("p" + std::to_string(i), {2, kSequenceDim, 2}));
    e.node(OpType::kSplit, "split", {x2}, parts, {{"axis", int64_t{0}}});
    REQUIRE(e.validate().is_ok());
    auto equal = e.create();
    REQUIRE(equal.is_ok());
    e.set(x2, labelled(6 * 4 * 2, 0));
    REQUIRE(e.run(**equal, 4).is_ok());
    for (size_t i = 0; i < 3; ++i) {
      std::vector<float> part = e.get(parts[i]);
      for (size_t j = 0; j < part.size(); ++j) CHECK(part[j] == float(i * 16 + j));
    }
  }

  TEST_CASE("Slice along fixed axes with negative bounds, and the first or last token of S") {
    struct Case {
      Shape x;
      std::vector<Attribute> attributes;
      size_t axis, first, length, sequence;
    };
    const std::vector<Case> cases = {
        {{kSequenceDim, 10}, {{"begin", int64_t{2}}, {"end", int64_t{7}}}, 1, 2, 5, 3},
        {{kSequenceDim, 10}, {{"begin", int64_t{-3}}}, 1, 7, 3, 2},
        {{kSequenceDim, 10}, {{"begin", int64_t{1}}, {"end", int64_t{-1}}}, 1, 1, 8, 1},
        {{kSequenceDim, 8}, {{"axis", int64_t{0}}, {"end", int64_t{1}}}, 0, 0, 1, 5},      // CLS
        {{kSequenceDim, 8}, {{"axis", int64_t{-2}}, {"begin", int64_t{-1}}}, 0, 4, 1, 5},  // last
                                                                                           // token
        {{2, kSequenceDim, 3}, {{"axis", int64_t{1}}, {"begin", int64_t{-1}}}, 1, 2, 1, 3},
        {{4, 6}, {{"axis", int64_t{0}}, {"begin", int64_t{3}}, {"end", int64_t{3}}}, 0, 3, 0, 1},
    };
    for (const Case& c : cases) {
      INFO("x " << shape_string(c.x) << " axis " << c.axis << " first " << c.first << " length "
                << c.length);
      OpHarness h;
      TensorId x = h.input("x", c.x);
      Shape y_shape = c.x;
      y_shape[c.axis] = int64_t(c.length);
      TensorId y = h.intermediate("y", y_shape);
      h.node(OpType::kSlice, "slice", {x}, {y}, c.attributes);
      Status valid = h.validate();
      REQUIRE_MESSAGE(valid.is_ok(), valid.message());
      auto kernel = h.create();
      REQUIRE(kernel.is_ok());
      h.set(x, labelled(shape_elements(c.x, c.sequence), 0));
      REQUIRE(h.run(**kernel, c.sequence).is_ok());
      const std::vector<float> ys = h.get(y);
      const std::vector<size_t> x_dims = dims_of(c.x, c.sequence),
                                y_dims = dims_of(y_shape, c.sequence);
      for_each_coordinate(y_dims, [&](std::vector<size_t> coords) {
        const size_t at = flat(y_dims, coords);
        coords[c.axis] += c.first;
        CHECK(ys[at] == float(flat(x_dims, coords)));
      });
    }
  }

  TEST_CASE("layout errors name the node, the axis and the shapes") {
    OpHarness h;
    TensorId a = h.input("a", {kSequenceDim, 4});
    TensorId b = h.input("b", {kSequenceDim, 3, 4});
    TensorId c = h.input("c", {kSequenceDim, 4}, DataType::kI32);
    TensorId y = h.intermediate("y", {kSequenceDim, 8});
    h.node(OpType::kConcat, "cat", {a, b}, {y});
    auto error = [&](OpType op, std::vector<TensorId> inputs, std::vector<Attribute> attributes,
                     size_t outputs = 1) {
      Node& node = h.graph.nodes.back();
      node.op = op;
      node.inputs = std::move(inputs);
      node.outputs.assign(outputs, y);
      node.attributes = std::move(attributes);
      Status s = h.infer();
      CHECK(s.is_ok() == h.create().is_ok());
      return s.message();
    };
    CHECK(contains(
        error(OpType::kConcat, {a, b}, {}),
        "node 'cat' (Concat): operand 1 'b' is f32 [S, 3, 4], but operand 0 is f32 [S, 4]"));
    CHECK(contains(error(OpType::kConcat, {a, c}, {}), "operand 1 'c' is i32 [S, 4]"));
    // A later operand of lower rank than the axis (found by fuzz_model_loader:
    // the axis once indexed its shape before the ranks were compared).
    CHECK(contains(error(OpType::kConcat, {b, a}, {{"axis", int64_t{2}}}),
                   "operand 1 'a' is f32 [S, 4], but operand 0 is f32 [S, 3, 4]"));
    CHECK(contains(error(OpType::kConcat, {a, a}, {{"axis", int64_t{0}}}),
                   "cannot concatenate along axis 0 of 'a' [S, 4]: it is the sequence length S"));
    CHECK(contains(error(OpType::kConcat, {a, a}, {{"axis", int64_t{2}}}),
                   "attribute 'axis' = 2 is out of range for rank 2 (expected -2 to 1)"));
    CHECK(contains(error(OpType::kSplit, {a}, {}, 3),
                   "axis 1 of 'a' [S, 4] has 4 elements, not divisible into 3 equal outputs"));
    CHECK(contains(error(OpType::kSplit, {a}, {{"sizes", std::vector<int64_t>{1, 2}}}, 2),
                   "attribute 'sizes' [1, 2] must have one size >= 0 per output (2) summing to 4"));
    CHECK(contains(error(OpType::kSplit, {a}, {{"sizes", std::vector<int64_t>{5, -1}}}, 2),
                   "[5, -1]"));
    CHECK(contains(error(OpType::kSplit, {a}, {{"sizes", int64_t{2}}}, 2),
                   "attribute 'sizes' must be an int list"));
    CHECK(contains(error(OpType::kSplit, {a}, {{"axis", int64_t{0}}}, 2),
                   "cannot split along axis 0"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"begin", int64_t{3}}, {"end", int64_t{2}}}),
                   "resolves to [3, 2), not within [0, 4] in order"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"begin", int64_t{-5}}}), "resolves to [-1, 4)"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"axis", int64_t{0}}, {"begin", int64_t{1}}}),
                   "slice [1, end) along axis 0 of 'a' [S, 4]: on the sequence axis S both bounds "
                   "must count from the start or both from the end"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"axis", int64_t{0}}, {"end", int64_t{2}}}),
                   "is not within the axis for every S >= 1"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"axis", int64_t{0}}, {"begin", int64_t{-2}}}),
                   "is not within the axis for every S >= 1"));
    CHECK(contains(error(OpType::kSlice, {a}, {{"start", int64_t{0}}}),
                   "unknown attribute 'start' (Slice takes axis, begin, end)"));
  }
}

}  // namespace normrt::testing
