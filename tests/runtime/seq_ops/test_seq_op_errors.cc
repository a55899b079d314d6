// Bad shapes, dtypes, kinds, attributes and weight data: each is an error
// from infer_shapes() or create() naming the node, the operand or attribute,
// what was expected and what was found.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "tests/runtime/seq_ops/one_node_harness.h"
#include "tests/runtime/seq_ops/seq_test_support.h"

namespace normrt::testing {
namespace {

// infer() (or create(), which runs it first) must fail mentioning `parts`.
void expect_error(OneNodeHarness& h, std::initializer_list<const char*> parts,
                  bool at_create = false) {
  Status s = at_create ? h.create(Isa::kScalar) : h.infer();
  REQUIRE_FALSE(s.is_ok());
  CHECK_MESSAGE(mentions(s.message(), parts), s.message());
}

// Attention q [S, 8], k, v [S, 8], 2 heads; `edit` spoils one thing.
void attention_error(const std::function<void(OneNodeHarness&)>& edit,
                     std::initializer_list<const char*> parts) {
  OneNodeHarness h(OpType::kAttention, "blk.attn");
  h.input("q", {kSequenceDim, 8});
  h.input("k", {kSequenceDim, 8});
  h.input("v", {kSequenceDim, 8});
  h.output("out", {kSequenceDim, 8});
  h.attribute("num_heads", int64_t{2});
  REQUIRE(h.infer().is_ok());
  edit(h);
  expect_error(h, parts);
}

Tensor& operand(OneNodeHarness& h, size_t index) {
  return h.graph().tensors[h.node().inputs[index]];
}

// x [S, 3], H = 2: w_x [8, 3], w_h [8, 2], b [8], gain_c [2].
OneNodeHarness lstm_node() {
  OneNodeHarness h(OpType::kLstmCell, "enc.l1");
  h.input("x", {kSequenceDim, 3});
  h.input("h0", {1, 2}, TensorKind::kState);
  h.input("c0", {1, 2}, TensorKind::kState);
  h.weight("w_x", {8, 3}, std::vector<float>(24, 0.1f));
  h.weight("w_h", {8, 2}, std::vector<float>(16, 0.1f));
  h.weight("b", {8}, std::vector<float>(8, 0.0f));
  for (int i = 0; i < 4; ++i) h.absent_input();
  h.weight("gain_c", {2}, std::vector<float>(2, 1.0f));
  h.output("h_seq", {kSequenceDim, 2});
  h.output("h_last", {1, 2});
  h.attribute("norm", std::string("layer_norm"));
  h.attribute("placement", std::string("cell_only"));
  return h;
}

TEST_SUITE("seq_ops") {
  TEST_CASE("attention: a bad relative_attention_bias or its attributes are named errors") {
    const auto with_bias = [](Shape shape, TensorKind kind = TensorKind::kWeight) {
      return [shape, kind](OneNodeHarness& h) {
        h.absent_input();
        h.absent_input();
        if (kind == TensorKind::kWeight) {
          h.weight("rel", shape, std::vector<float>(static_cast<size_t>(shape[0] * shape[1])));
        } else {
          h.input("rel", shape, kind);
        }
      };
    };
    attention_error(with_bias({32, 3}), {"blk.attn", "'rel'", "[32, 3]", "num_heads = 2"});
    attention_error(with_bias({3, 2}), {"'rel'", "R >= 4 buckets"});
    attention_error(with_bias({32, 2}, TensorKind::kInput), {"'rel'", "weight"});
    attention_error(
        [&](OneNodeHarness& h) {
          with_bias({32, 2})(h);
          h.attribute("relative_num_buckets", int64_t{40});
        },
        {"'relative_num_buckets'", "found 40"});
    attention_error(
        [&](OneNodeHarness& h) {
          with_bias({32, 2})(h);
          h.attribute("relative_max_distance", int64_t{8});
        },
        {"'relative_max_distance'", "found 8"});
    attention_error(
        [&](OneNodeHarness& h) {
          with_bias({32, 2})(h);
          operand(h, 1).shape = {9, 8};
          operand(h, 2).shape = {9, 8};
        },
        {"with a position bias", "as many rows as q", "found [9]"});
    attention_error([](OneNodeHarness& h) { h.attribute("relative_num_buckets", int64_t{32}); },
                    {"blk.attn", "need the input relative_attention_bias"});
  }

  TEST_CASE("attention: bad operands and attributes are named errors") {
    attention_error([](OneNodeHarness& h) { h.node().attributes.clear(); },
                    {"node 'blk.attn' (Attention)", "'num_heads' is required"});
    attention_error([](OneNodeHarness& h) { h.attribute("num_heads", int64_t{3}); },
                    {"blk.attn", "q 'q'", "[S, 8]", "num_heads (3)"});
    attention_error([](OneNodeHarness& h) { h.attribute("num_kv_heads", int64_t{3}); },
                    {"blk.attn", "'num_kv_heads'", "[1, 2]", "found 3"});
    attention_error(
        [](OneNodeHarness& h) {
          h.attribute("num_heads", int64_t{4});
          h.attribute("num_kv_heads", int64_t{3});
        },
        {"num_heads (4)", "multiple of num_kv_heads (3)"});
    attention_error(
        [](OneNodeHarness& h) {
          operand(h, 1).shape = {kSequenceDim, 6};
        },
        {"blk.attn", "k (rows · num_kv_heads·d) 'k'", "[S, 8]", "found [S, 6]"});
    attention_error(
        [](OneNodeHarness& h) {
          operand(h, 2).shape = {7, 8};
        },
        {"v (as k) 'v'", "[S, 8]", "found [7, 8]"});
    attention_error([](OneNodeHarness& h) { operand(h, 0).dtype = DataType::kI32; },
                    {"q 'q'", "must be f32, found i32"});
    attention_error(
        [](OneNodeHarness& h) {
          operand(h, 0).shape = {kSequenceDim, 2, 4};
        },
        {"q 'q'", "rank 2", "[S, 2, 4]"});
    attention_error([](OneNodeHarness& h) { h.attribute("num_head", int64_t{2}); },
                    {"unknown attribute 'num_head'", "num_kv_heads"});
    attention_error([](OneNodeHarness& h) { h.attribute("causal", int64_t{2}); },
                    {"'causal'", "[0, 1]", "found 2"});
    attention_error([](OneNodeHarness& h) { h.attribute("scale", std::nan("")); },
                    {"'scale'", "finite"});
    attention_error([](OneNodeHarness& h) { h.attribute("causal", std::string("yes")); },
                    {"'causal'", "must be an int", "found string"});
    attention_error(
        [](OneNodeHarness& h) {
          operand(h, 1).shape = {9, 8};
          operand(h, 2).shape = {9, 8};
          h.attribute("causal", int64_t{1});
        },
        {"causal", "k 'k'", "as many rows as q ([S])", "found [9]"});
    attention_error([](OneNodeHarness& h) { h.node().inputs[1] = 99; },
                    {"input 1 (k)", "tensor 99", "has 4 tensors"});
    attention_error(
        [](OneNodeHarness& h) {
          h.input("k_cache", {5, 8}, TensorKind::kState);
        },
        {"both present or both absent", "v_cache is absent"});
    attention_error(
        [](OneNodeHarness& h) {
          h.input("k_cache", {5, 8}, TensorKind::kInput);
          h.input("v_cache", {5, 8}, TensorKind::kState);
        },
        {"k_cache 'k_cache'", "must be a state tensor, found input"});
    attention_error(
        [](OneNodeHarness& h) {
          h.input("k_cache", {5, 8}, TensorKind::kState);
          h.input("v_cache", {6, 8}, TensorKind::kState);
        },
        {"v_cache (as k_cache) 'v_cache'", "[5, 8]", "found [6, 8]"});
    attention_error(
        [](OneNodeHarness& h) {
          h.input("k_cache", {5, 6}, TensorKind::kState);
          h.input("v_cache", {5, 6}, TensorKind::kState);
        },
        {"k_cache (C · num_kv_heads·d) 'k_cache'", "[5, 8]", "found [5, 6]"});
  }

  TEST_CASE("rope: bad shapes and attributes are named errors") {
    struct Bad {
      const char* attribute;
      AttributeValue value;
      std::vector<const char*> parts;
    };
    const Bad cases[] = {
        {"rotary_dim", int64_t{5}, {"'rotary_dim' must be even", "found 5"}},
        {"rotary_dim", int64_t{10}, {"'rotary_dim'", "[2, 8]", "found 10"}},
        {"theta", 0.0, {"'theta' must be > 0"}},
        {"style", std::string("neox"), {"'style'", "'half', 'interleaved'", "found 'neox'"}},
        {"num_heads", int64_t{3}, {"x 'x'", "[S, 16]", "num_heads (3)"}},
        {"num_heads", int64_t{16}, {"x 'x'", "d ≥ 2"}},
        {"rotary", int64_t{4}, {"unknown attribute 'rotary'"}},
    };
    for (const Bad& bad : cases) {
      OneNodeHarness h(OpType::kRope, "blk.rope_k");
      h.input("x", {kSequenceDim, 16});
      h.output("y", {kSequenceDim, 16});
      h.attribute("num_heads", int64_t{2});
      REQUIRE(h.infer().is_ok());
      h.attribute(bad.attribute, bad.value);
      Status s = h.infer();
      REQUIRE_FALSE(s.is_ok());
      CHECK(mentions(s.message(), {"node 'blk.rope_k' (Rope)"}));
      for (const char* part : bad.parts) CHECK_MESSAGE(mentions(s.message(), {part}), s.message());
    }
  }

  TEST_CASE("lstm_cell: bad operands, attributes and weight data are named errors") {
    {
      OneNodeHarness h = lstm_node();
      REQUIRE(h.create(Isa::kScalar).is_ok());
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 0).shape = {kSequenceDim, 4};  // x's D no longer matches w_x
      expect_error(h, {"node 'enc.l1' (LstmCell)", "w_x (4H · D, D from x) 'w_x'", "[8, 4]",
                       "found [8, 3]"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 4).shape = {8, int64_t{1} << 40};  // 4H would be near overflow
      expect_error(h, {"w_h 'w_h'", "[8, 1099511627776]", "must be in [1, 2^31)"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 10).shape = {3};
      expect_error(h, {"gain_c 'gain_c'", "[2]", "found [3]"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 1).shape = {2};
      expect_error(h, {"h0 'h0'", "rank 2", "[2]"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 3).kind = TensorKind::kInput;
      expect_error(h, {"w_x", "must be a weight tensor, found input"});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("norm", std::string("batch_norm"));
      expect_error(h, {"'norm'", "\"none\", \"layer_norm\", \"rms_norm\" or \"prms_norm\"",
                       "found \"batch_norm\""});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("norm", std::string("none"));
      expect_error(h, {"norm 'none' contradicts placement 'cell_only'"});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("norm", std::string("prms_norm"));
      expect_error(h, {"'p'", "is required"});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("p", 0.5);
      expect_error(h, {"'p' applies only to pRMSNorm, not layer_norm"});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("eps_placement", std::string("outside"));
      expect_error(h,
                   {"'eps_placement'", "\"inside_sqrt\" or \"added_to_rms\"", "found \"outside\""});
    }
    {
      OneNodeHarness h = lstm_node();
      h.attribute("reverse", int64_t{-1});
      expect_error(h, {"'reverse'", "[0, 1]", "found -1"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 4).dtype = DataType::kBF16;
      expect_error(h, {"share one dtype", "w_x 'w_x' is f32", "w_h 'w_h' is bf16"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 0).shape = {0, 3};
      expect_error(h, {"x 'x'", "S, D ≥ 1", "[0, 3]"});
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 4).data.size = 60;  // a truncated tensor: 64 bytes expected
      expect_error(h, {"w_h 'w_h' [8, 2] f32 must hold 64 bytes, found 60"}, true);
    }
    {
      OneNodeHarness h = lstm_node();
      operand(h, 5).data.bytes = nullptr;
      expect_error(h, {"b 'b' [8] f32 must hold 32 bytes, found no data"}, true);
    }
    {
      // A gain on a disabled normalization: the kernel's error, under the node's name.
      OneNodeHarness h = lstm_node();
      h.attribute("placement", std::string("none"));
      expect_error(h, {"node 'enc.l1' (LstmCell)", "gain_c"}, true);
    }
  }

  TEST_CASE("gru_cell: bad operands and attributes are named errors") {
    const auto gru = [] {
      OneNodeHarness h(OpType::kGruCellBa, "dec.gru");
      h.input("x", {kSequenceDim, 3});
      h.absent_input();
      h.weight("w_x", {4, 3}, std::vector<float>(12, 0.1f));
      h.weight("w_h", {4, 2}, std::vector<float>(8, 0.1f));
      h.weight("w", {2, 3}, std::vector<float>(6, 0.1f));
      h.weight("u", {2, 2}, std::vector<float>(4, 0.1f));
      h.output("h_seq", {kSequenceDim, 2});
      return h;
    };
    {
      OneNodeHarness h = gru();
      REQUIRE(h.create(Isa::kScalar).is_ok());
    }
    {
      OneNodeHarness h = gru();
      operand(h, 4).shape = {3, 3};
      expect_error(h, {"node 'dec.gru' (GruCellBa)", "w (H · D) 'w'", "[2, 3]", "found [3, 3]"});
    }
    {
      OneNodeHarness h = gru();
      operand(h, 3).shape = {4, 3};
      expect_error(h, {"w_h (2H · H) 'w_h'", "[4, 2]", "found [4, 3]"});
    }
    {
      OneNodeHarness h = gru();
      h.weight("gain_h", {4}, std::vector<float>(4, 1.0f));  // no norm: no gains
      expect_error(h, {"node 'dec.gru' (GruCellBa)", "gain"}, true);
    }
    {
      OneNodeHarness h = gru();
      h.attribute("placement", std::string("cell_only"));  // an LSTM attribute
      expect_error(h, {"unknown attribute 'placement'"});
    }
    {
      OneNodeHarness h = gru();
      h.node().inputs[1] = h.input("h0", {1, 3}, TensorKind::kState);
      h.node().inputs.pop_back();
      expect_error(h, {"h0 'h0'", "[1, 2]", "found [1, 3]"});
    }
  }
}

}  // namespace
}  // namespace normrt::testing
