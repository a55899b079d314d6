// Every bad option or input is an error that names what is wrong; nothing
// crashes, and a model that cannot be decoded is refused at create().
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "decode_test_cases.h"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"

namespace normrt {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ids i32 `token_shape` → Embedding [V = 6, D = 4] → Linear → "logits";
// with `state`, h [1, 4] ← h + 1 after each run.
std::shared_ptr<const Model> tiny_model(Shape token_shape, bool state) {
  GraphBuilder b;
  TensorId ids = b.input("ids", DataType::kI32, token_shape);
  TensorId table = b.weight("table", {6, 4}, std::vector<float>(24, 0.5f));
  TensorId w = b.weight("w", {6, 4}, std::vector<float>(24, 0.25f));
  Shape rows = token_shape;
  rows.push_back(4);
  TensorId e = b.node(OpType::kEmbedding, "embed", {ids, table}, {rows});
  Shape logits_shape = token_shape;
  logits_shape.push_back(6);
  TensorId logits = b.node(OpType::kLinear, "readout", {e, w, kNoTensor}, {logits_shape});
  b.rename(logits, "logits");
  b.output(logits);
  if (state) {
    TensorId h = b.state("h", DataType::kF32, {1, 4});
    TensorId step = b.weight("step", {4}, std::vector<float>(4, 1.0f));
    TensorId counted = b.node(OpType::kAdd, "count", {h, step}, {{1, 4}});
    b.state_update(h, counted);
  }
  auto model = compile_model(b.finish(8), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

std::string create_error(std::shared_ptr<const Model> model, const DecodeOptions& options) {
  auto decoder = Decoder::create(std::move(model), options);
  REQUIRE_FALSE(decoder.is_ok());
  return decoder.status().message();
}

DecodeOptions valid_options() {
  DecodeOptions options;
  options.prefix = {1};
  options.max_length = 4;
  return options;
}

std::string decode_error(const test::DecodeCase& c, DecodeOptions options,
                         const std::vector<int32_t>& prefix, const Decoder::Prepare& prepare) {
  auto decoder = Decoder::create(c.model, options);
  REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
  auto result = decoder.value()->decode(prefix, prepare);
  REQUIRE_FALSE(result.is_ok());
  return result.status().message();
}

}  // namespace

TEST_SUITE("decode errors") {
  TEST_CASE("a decodable tiny model is accepted (so the errors below are about one thing each)") {
    auto decoder = Decoder::create(tiny_model({kSequenceDim}, true), valid_options());
    REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
    CHECK(decoder.value()->vocab_size() == 6);
    auto result = decoder.value()->decode();
    REQUIRE_MESSAGE(result.is_ok(), result.status().message());
    CHECK(result->front().ids.size() == 4);
  }

  TEST_CASE("create() refuses a model or options that cannot work, naming them") {
    auto model = tiny_model({kSequenceDim}, true);
    DecodeOptions o = valid_options();
    CHECK(contains(create_error(nullptr, o), "the model is null"));

    o.token_input = "tokens";
    CHECK(contains(create_error(model, o), "no input 'tokens' (inputs: ids)"));
    o = valid_options();
    o.logits_output = "scores";
    CHECK(contains(create_error(model, o), "no output 'scores' (outputs: logits)"));

    test::DecodeCase rnn = test::toy_rnn_case(5, 4, 1);
    o = rnn.options;
    o.max_length = 3;
    o.token_input = "context";
    CHECK(contains(create_error(rnn.model, o),
                   "token input 'context' must be i32 with one token per step ([S] or [1]), found "
                   "f32 [1, 4]"));
    CHECK(contains(
        create_error(tiny_model({2}, true), valid_options()),
        "token input 'ids' must be i32 with one token per step ([S] or [1]), found i32 [2]"));
    CHECK(contains(create_error(tiny_model({1, kSequenceDim}, true), valid_options()),
                   "logits output 'logits' must be f32 [S, V] or [1, V], found f32 [1, S, 6]"));
    CHECK(contains(create_error(tiny_model({kSequenceDim}, false), valid_options()),
                   "the model keeps no state"));

    o = valid_options();
    o.beam_size = 0;
    CHECK(contains(create_error(model, o), "beam_size must be in [1, 1024], found 0"));
    o.beam_size = 1025;
    CHECK(contains(create_error(model, o), "beam_size must be in [1, 1024], found 1025"));
    o = valid_options();
    o.max_length = 0;
    CHECK(contains(create_error(model, o), "max_length must be in [1, "));
    o.max_length = std::numeric_limits<size_t>::max();
    CHECK(contains(create_error(model, o), "max_length must be in [1, "));
    o = valid_options();
    o.beam_size = 2;
    o.n_best = 3;
    CHECK(contains(create_error(model, o), "n_best must be in [1, beam_size = 2], found 3"));
    o.n_best = 0;
    CHECK(contains(create_error(model, o), "n_best must be in [1, beam_size = 2], found 0"));
    o = valid_options();
    o.length_alpha = -0.5;
    CHECK(contains(create_error(model, o), "length_alpha must be finite and ≥ 0"));
    o.length_alpha = std::nan("");
    CHECK(contains(create_error(model, o), "length_alpha must be finite and ≥ 0"));
    o = valid_options();
    o.eos_id = 6;
    CHECK(contains(create_error(model, o), "eos_id 6 is not a token of the logits (V = 6)"));
  }

  TEST_CASE(
      "decode() errors name the prefix, the prepare hook, the step and the run's own message") {
    test::DecodeCase llama = test::llama_case();
    DecodeOptions o = llama.options;
    o.max_length = 4;
    o.beam_size = 2;
    CHECK(contains(decode_error(llama, o, {}, {}), "the prefix is empty"));
    std::string range = decode_error(llama, o, {3, 97}, {});
    CHECK(contains(range, "feeding the prefix (2 tokens)"));
    CHECK(contains(range, "ids[1] = 97 is out of range for table"));
    std::string failed =
        decode_error(llama, o, o.prefix, [](Session&) { return Status::error("no source today"); });
    CHECK(contains(failed, "prepare (session 0): no source today"));

    // The KV cache holds 64 rows: the 7-token prompt and tokens of steps 0 .. 57.
    o.max_length = 60;
    std::string overflow = decode_error(llama, o, o.prefix, {});
    CHECK(contains(overflow, "step 58"));
    CHECK(contains(overflow, "KV cache overflows"));

    test::DecodeCase seq2seq = test::seq2seq_case("post_ln_relu");
    o = seq2seq.options;
    o.max_length = 3;
    CHECK(contains(decode_error(seq2seq, o, o.prefix, {}), "input 'src_ids' is not set"));
  }

  TEST_CASE("non-finite logits are an error naming the step, hypothesis and index") {
    test::DecodeCase rnn = test::toy_rnn_case(5, 4, 3);
    DecodeOptions o = rnn.options;
    o.max_length = 3;
    o.beam_size = 2;
    std::vector<float> nan_context(4, std::nanf(""));
    std::string message = decode_error(rnn, o, o.prefix, [&](Session& session) {
      return session.set_input("context", nan_context.data(), 16);
    });
    CHECK(contains(
        message,
        "step 0, hypothesis 0: logits 'logits' have no finite log-softmax (index 0 of 5 is nan)"));
  }
}

}  // namespace normrt
