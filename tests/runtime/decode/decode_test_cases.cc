#include "decode_test_cases.h"

#include <doctest/doctest.h>

#include <random>

#include "models/transformer/llama_decoder.h"
#include "models/transformer/torch_transformer.h"
#include "runtime/exec/compiled_model.h"
#include "runtime/graph/graph_builder.h"
#include "tests/models/llama/llama_fixture.h"
#include "tests/models/seq2seq/seq2seq_fixture.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::test {
namespace {

std::shared_ptr<const Model> compile(Expected<Graph> graph) {
  REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
  auto model = compile_model(std::move(graph).value(), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

std::unique_ptr<Session> fresh_session(std::shared_ptr<const Model> model) {
  auto session = Session::create(std::move(model));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  return std::move(session).value();
}

// The last row of `output` after a run.
std::vector<float> last_row(const Session& session, const char* output = "logits") {
  auto out = session.output(output);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  const size_t vocab = out->shape[out->shape.rank - 1];
  const float* row = out->f32() + out->elements() - vocab;
  return std::vector<float>(row, row + vocab);
}

void run_ok(Session& session) {
  Status ran = session.run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
}

void bind(Session& session, const std::string& name, const void* data, size_t bytes) {
  Status bound = session.set_input(name, data, bytes);
  REQUIRE_MESSAGE(bound.is_ok(), bound.message());
}

std::vector<int32_t> concat(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  std::vector<int32_t> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

std::vector<float> random_values(size_t count, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(count);
  for (float& v : values) v = uniform(rng);
  return values;
}

}  // namespace

DecodeCase llama_case(const std::vector<int32_t>& prompt_override) {
  struct Owned {
    LlamaFixture fixture;
    std::unique_ptr<SafetensorsFile> weights;
  };
  auto owned = std::make_shared<Owned>();
  const std::string base = llama_fixture_dir() + "/tiny_llama";
  auto fixture = read_llama_fixture(base + ".expected.txt");
  REQUIRE_MESSAGE(fixture.is_ok(), fixture.status().message());
  owned->fixture = fixture.value();
  auto weights = SafetensorsFile::open(base + ".safetensors");
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  owned->weights = std::move(weights).value();

  const LlamaConfig config = test::tiny_llama_config();

  DecodeCase c;
  c.name = "llama";
  c.model = compile(build_llama_decoder(config, *owned->weights, DataType::kF32));
  c.options.token_input = "input_ids";
  c.options.prefix = prompt_override.empty() ? owned->fixture.prompt : prompt_override;
  if (prompt_override.empty()) c.external_greedy = owned->fixture.variants.at("f32").generated;
  std::shared_ptr<const Model> model = c.model;
  const std::vector<int32_t> prompt = c.options.prefix;
  c.next_logits = [model, prompt](const std::vector<int32_t>& generated) {
    auto session = fresh_session(model);
    const std::vector<int32_t> ids = concat(prompt, generated);
    bind(*session, "input_ids", ids.data(), ids.size() * 4);
    run_ok(*session);
    return last_row(*session);
  };
  c.owned = owned;
  return c;
}

DecodeCase seq2seq_case(const std::string& name) {
  auto fixture = std::make_shared<Seq2SeqFixture>(load_seq2seq_fixture(name));
  const Seq2SeqFixture& f = *fixture;
  TorchTransformerBuildOptions options;
  options.source_length = static_cast<int64_t>(f.src_ids.size());
  options.kv_cache = true;
  DecodeCase c;
  c.name = "seq2seq " + name;
  c.model = compile(build_torch_transformer(f.config, *f.weights, DataType::kF32, options));
  c.options.token_input = "tgt_ids";
  c.options.prefix = {f.greedy_ids.front()};  // BOS
  c.external_greedy.assign(f.greedy_ids.begin() + 1, f.greedy_ids.end());
  c.prepare = [fixture](Session& session) {
    return session.set_input("src_ids", fixture->src_ids.data(), fixture->src_ids.size() * 4);
  };
  // The reference: the teacher-forcing graph (no KV cache) over BOS + generated.
  options.kv_cache = false;
  auto teacher = compile(build_torch_transformer(f.config, *f.weights, DataType::kF32, options));
  const std::vector<int32_t> prefix = c.options.prefix;
  c.next_logits = [teacher, fixture, prefix](const std::vector<int32_t>& generated) {
    auto session = fresh_session(teacher);
    const std::vector<int32_t> tgt = concat(prefix, generated);
    bind(*session, "src_ids", fixture->src_ids.data(), fixture->src_ids.size() * 4);
    bind(*session, "tgt_ids", tgt.data(), tgt.size() * 4);
    run_ok(*session);
    return last_row(*session);
  };
  c.owned = fixture;
  return c;
}

DecodeCase seq2seq_parts_case(const std::string& name) {
  DecodeCase c = seq2seq_case(name);  // its reference and prefix
  struct Owned {
    std::shared_ptr<void> whole;
    std::unique_ptr<Session> encoder;  // ran once; its outputs stay valid
  };
  auto owned = std::make_shared<Owned>();
  owned->whole = c.owned;
  const Seq2SeqFixture& f = *std::static_pointer_cast<Seq2SeqFixture>(c.owned);
  TorchTransformerBuildOptions options;
  options.source_length = static_cast<int64_t>(f.src_ids.size());
  options.kv_cache = true;
  options.part = TorchTransformerPart::kEncoder;
  owned->encoder = fresh_session(
      compile(build_torch_transformer(f.config, *f.weights, DataType::kF32, options)));
  bind(*owned->encoder, "src_ids", f.src_ids.data(), f.src_ids.size() * 4);
  run_ok(*owned->encoder);
  options.part = TorchTransformerPart::kDecoder;
  c.name = "seq2seq parts " + name;
  c.model = compile(build_torch_transformer(f.config, *f.weights, DataType::kF32, options));
  const int64_t layers = f.config.num_decoder_layers;
  Session* encoder = owned->encoder.get();
  c.prepare = [encoder, layers](Session& session) {
    for (int64_t layer = 0; layer < layers; ++layer) {
      for (bool values : {false, true}) {
        const std::string input = cross_attention_input_name(layer, values);
        NORMRT_ASSIGN_OR_RETURN(auto out, encoder->output(input));
        NORMRT_RETURN_IF_ERROR(session.set_input(input, out.data, out.elements() * 4));
      }
    }
    return Status::ok();
  };
  c.owned = owned;
  return c;
}

DecodeCase toy_rnn_case(size_t vocab, size_t dim, uint32_t seed) {
  struct Owned {
    std::vector<float> h0, context;
  };
  std::mt19937 rng(seed);
  const int64_t v = static_cast<int64_t>(vocab), d = static_cast<int64_t>(dim);
  GraphBuilder b;
  TensorId prev = b.input("prev_id", DataType::kI32, {1});
  TensorId context = b.input("context", DataType::kF32, {1, d});
  TensorId h = b.state("h", DataType::kF32, {1, d});
  TensorId table = b.weight("embedding", {v, d}, random_values(vocab * dim, 1.0f, rng));
  TensorId w = b.weight("w", {d, d}, random_values(dim * dim, 1.5f / std::sqrt(float(dim)), rng));
  TensorId bias = b.weight("b", {d}, random_values(dim, 0.1f, rng));
  TensorId wo =
      b.weight("wo", {v, d}, random_values(vocab * dim, 3.0f / std::sqrt(float(dim)), rng));
  TensorId bo = b.weight("bo", {v}, random_values(vocab, 0.5f, rng));
  TensorId e = b.node(OpType::kEmbedding, "embed", {prev, table}, {{1, d}});
  TensorId sum = b.node(OpType::kAdd, "add_state", {e, h}, {{1, d}});
  sum = b.node(OpType::kAdd, "add_context", {sum, context}, {{1, d}});
  TensorId z = b.node(OpType::kLinear, "cell", {sum, w, bias}, {{1, d}});
  TensorId next =
      b.node(OpType::kActivation, "tanh", {z}, {{1, d}}, {{"activation", std::string("tanh")}});
  b.state_update(h, next);
  TensorId logits = b.node(OpType::kLinear, "readout", {next, wo, bo}, {{1, v}});
  b.rename(logits, "logits");
  b.output(logits);

  auto owned = std::make_shared<Owned>();
  owned->h0 = random_values(dim, 0.8f, rng);
  owned->context = random_values(dim, 0.5f, rng);
  DecodeCase c;
  c.name = "toy_rnn V=" + std::to_string(vocab) + " D=" + std::to_string(dim);
  c.model = compile(b.finish(1));
  c.options.token_input = "prev_id";
  c.options.prefix = {static_cast<int32_t>(seed % vocab), 0};  // fed one run each
  auto prepare = [owned](Session& session) -> Status {
    NORMRT_RETURN_IF_ERROR(
        session.set_input("context", owned->context.data(), owned->context.size() * 4));
    return session.set_state("h", owned->h0.data(), owned->h0.size() * 4);
  };
  c.prepare = prepare;
  std::shared_ptr<const Model> model = c.model;
  const std::vector<int32_t> prefix = c.options.prefix;
  c.next_logits = [model, prefix, prepare](const std::vector<int32_t>& generated) {
    auto session = fresh_session(model);
    Status prepared = prepare(*session);
    REQUIRE_MESSAGE(prepared.is_ok(), prepared.message());
    for (int32_t token : concat(prefix, generated)) {
      bind(*session, "prev_id", &token, 4);
      run_ok(*session);
    }
    return last_row(*session);
  };
  c.owned = owned;
  return c;
}

std::vector<DecodeCase> all_decode_cases() {
  std::vector<DecodeCase> cases;
  cases.push_back(llama_case());
  cases.push_back(seq2seq_case(seq2seq_case_names().front()));
  cases.push_back(seq2seq_parts_case(seq2seq_case_names()[1]));
  cases.push_back(toy_rnn_case(13, 8, 7));
  return cases;
}

}  // namespace normrt::test
