// The model registry: every architecture is found by the config keys its
// documentation names, unknown and refused values are errors naming them,
// and a decoder's token input and logits travel in the model's metadata.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "formats/json/json_config.h"
#include "models/registry.h"
#include "models/transformer/llama_decoder.h"
#include "normrt/decode.hpp"
#include "runtime/exec/compiled_model.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

JsonConfig parse(const std::string& text) {
  auto config = JsonConfig::parse(text, "test.json");
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  return config.value();
}

std::string detected(const std::string& text) {
  auto architecture = detect_architecture(parse(text));
  REQUIRE_MESSAGE(architecture.is_ok(), architecture.status().message());
  return architecture.value()->name;
}

std::string refusal(const std::string& text) {
  auto architecture = detect_architecture(parse(text));
  REQUIRE(!architecture.is_ok());
  return architecture.status().message();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string metadata(const Graph& graph, const std::string& key) {
  for (const Attribute& a : graph.metadata)
    if (a.name == key) return std::get<std::string>(a.value);
  return "";
}

const std::string kLlamaDir = NORMRT_LLAMA_FIXTURE_DIR;
const std::string kRnnDir = NORMRT_RNN_FIXTURE_DIR;

}  // namespace

TEST_CASE("every entry is complete and found by its name") {
  std::set<std::string> names;
  for (const Architecture* a : architectures()) {
    REQUIRE(a != nullptr);
    CAPTURE(a->name);
    CHECK(names.insert(a->name).second);
    CHECK(static_cast<bool>(a->read_config));
    CHECK(static_cast<bool>(a->build));
    CHECK_FALSE(a->graph_roles.empty());
    CHECK(find_architecture(a->name) == a);
    // A claim on configs without the two keys must say what it looks for.
    CHECK((a->match.claims == nullptr) == (a->match.claims_keys == nullptr));
  }
  CHECK(names.size() == 17);
  CHECK(find_architecture("bert") == nullptr);
}

TEST_CASE("each architecture is detected from the keys its documentation names") {
  CHECK(detected(R"({"architecture": "lstm"})") == "lstm");
  CHECK(detected(R"({"architecture": "ln_lstm"})") == "lstm");
  CHECK(detected(R"({"architecture": "gru"})") == "gru");
  CHECK(detected(R"({"architecture": "ln_gru"})") == "gru");
  CHECK(detected(R"({"architecture": "mlp"})") == "mlp");
  CHECK(detected(R"({"architecture": "ln_mlp"})") == "mlp");
  CHECK(detected(R"({"architecture": "torch_transformer"})") == "torch_transformer");
  CHECK(detected(R"({"architecture": "convpool_cnn_c"})") == "convpool_cnn_c");
  CHECK(detected(R"({"architecture": "attentive_reader"})") == "attentive_reader");
  CHECK(detected(R"({"architecture": "order_embeddings"})") == "order_embeddings");
  CHECK(detected(R"({"architecture": "handwriting"})") == "handwriting");
  CHECK(detected(R"({"model_type": "bert"})") == "bert_encoder");
  CHECK(detected(R"({"model_type": "llama"})") == "llama_decoder");
  CHECK(detected(R"({"model_type": "mpnet"})") == "mpnet_encoder");
  CHECK(detected(R"({"architectures": ["MPNetModel"]})") == "mpnet_encoder");
  CHECK(detected(R"({"architectures": ["BertForMaskedLM"]})") == "bert_encoder");
  CHECK(detected(R"({"model_type": "distilbert"})") == "distilbert_encoder");
  CHECK(detected(R"({"model_type": "distilbert",
                     "architectures": ["DistilBertForSequenceClassification"]})") ==
        "distilbert_sequence_classifier");
  CHECK(detected(R"({"decoder": "gru_cond"})") == "rnnsearch");
  CHECK(detected(R"({"dim_word": 4, "n_words_src": 9})") == "rnnsearch");
  // "architecture" wins over "model_type", which wins over the other claims.
  CHECK(detected(R"({"architecture": "gru", "model_type": "bert"})") == "gru");
  CHECK(detected(R"({"model_type": "llama", "decoder": "gru_cond"})") == "llama_decoder");
}

TEST_CASE("unknown and refused values are named, with what would be accepted") {
  const std::string unknown = refusal(R"({"architecture": "transformer_xl"})");
  CHECK_MESSAGE(contains(unknown, "test.json: unknown architecture 'transformer_xl'"), unknown);
  CHECK_MESSAGE(contains(unknown,
                         "lstm, gru, mlp, torch_transformer, convpool_cnn_c, attentive_reader, "
                         "order_embeddings, handwriting"),
                unknown);
  CHECK_MESSAGE(contains(unknown, "(or ln_lstm, ln_gru, ln_mlp)"), unknown);

  const std::string type = refusal(R"({"model_type": "gpt2"})");
  CHECK_MESSAGE(contains(type, "unknown model_type 'gpt2'"), type);
  CHECK_MESSAGE(contains(type, "'bert' (bert_encoder), 'roberta' (roberta_encoder)"), type);
  CHECK_MESSAGE(contains(type,
                         "'distilbert' (distilbert_encoder), 'mpnet' (mpnet_encoder) or 'llama' "
                         "(llama_decoder)"),
                type);

  const std::string mistral = refusal(R"({"model_type": "mistral"})");
  CHECK_MESSAGE(contains(mistral, "model_type 'mistral' is not supported yet"), mistral);
  const std::string tensorflow = refusal(R"({"model_type": "transformer"})");
  CHECK_MESSAGE(contains(tensorflow, "TensorFlow Nematus"), tensorflow);

  const std::string none = refusal(R"({"hidden_size": 8})");
  CHECK_MESSAGE(contains(none, "cannot tell the architecture"), none);
  CHECK_MESSAGE(contains(none, "'architectures' naming a Bert* class"), none);
  CHECK_MESSAGE(contains(none, "'dim_word' with 'n_words_src'"), none);

  const std::string not_text = refusal(R"({"architecture": 3})");
  CHECK_MESSAGE(contains(not_text, "key 'architecture'"), not_text);
}

TEST_CASE("options an architecture does not take are refused by read_config") {
  const JsonConfig lstm = parse(R"({"architecture": "lstm", "input_size": 3, "hidden_size": 4})");
  const Architecture& entry = *find_architecture("lstm");
  CHECK(entry.read_config(lstm, {}).is_ok());
  ModelBuildOptions pooled;
  pooled.pooling.mode = "mean";
  const Status s = entry.read_config(lstm, pooled);
  REQUIRE_FALSE(s.is_ok());
  CHECK(contains(s.message(), "--pooling applies to BERT encoders only, not to lstm"));

  const JsonConfig bert = parse(R"({"model_type": "bert", "vocab_size": 10, "hidden_size": 8,
      "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 16})");
  ModelBuildOptions bad_pooling;
  bad_pooling.pooling.mode = "median";
  const Status b = find_architecture("bert_encoder")->read_config(bert, bad_pooling);
  REQUIRE_FALSE(b.is_ok());
  CHECK_MESSAGE(contains(b.message(), "'median'"), b.message());
}

TEST_CASE("the registry records a decoder's names, and the Decoder finds them") {
  auto config = JsonConfig::load(kLlamaDir + "/tiny_llama.config.json");
  REQUIRE(config.is_ok());
  auto weights = SafetensorsFile::open(kLlamaDir + "/tiny_llama.safetensors");
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  const Architecture& llama = *find_architecture("llama_decoder");
  auto built = build_model(llama, config.value(), *weights.value(), {});
  REQUIRE_MESSAGE(built.is_ok(), built.status().message());
  REQUIRE(built.value().graphs.size() == 1);
  Graph& graph = built.value().graphs[0].graph;
  CHECK(metadata(graph, "decode_token_input") == "input_ids");
  CHECK(metadata(graph, "decode_logits_output") == "logits");

  auto model = compile_model(std::move(graph), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  DecodeOptions options;  // no names: the model's
  options.prefix = {1, 5};
  options.max_length = 3;
  auto decoder = Decoder::create(model.value(), options);
  REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
  CHECK(decoder.value()->options().token_input == "input_ids");
  CHECK(decoder.value()->options().logits_output == "logits");
  auto best = decoder.value()->decode();
  REQUIRE_MESSAGE(best.is_ok(), best.status().message());
  CHECK(best.value().front().ids.size() == 3);

  // A graph without the metadata (a file written before it): the old
  // defaults, "ids" and "logits", which this model does not have.
  auto plain = build_llama_decoder(read_llama_config(config.value()).value(), *weights.value(),
                                   DataType::kF32);
  REQUIRE(plain.is_ok());
  CHECK(metadata(plain.value(), "decode_token_input").empty());
  auto old = compile_model(std::move(plain).value(), {});
  REQUIRE(old.is_ok());
  auto refused = Decoder::create(old.value(), options);
  REQUIRE_FALSE(refused.is_ok());
  CHECK_MESSAGE(contains(refused.status().message(), "no input 'ids' (inputs: input_ids)"),
                refused.status().message());
}

TEST_CASE("a model without the token input gets no decode metadata") {
  // The LSTM fixture reads features x, not ids: nothing to decode.
  const std::string base = kRnnDir + "/lstm_layer_norm";
  auto config = JsonConfig::load(base + ".json");
  REQUIRE(config.is_ok());
  auto weights = SafetensorsFile::open(base + ".safetensors");
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  auto built = build_model(*find_architecture("lstm"), config.value(), *weights.value(), {});
  REQUIRE_MESSAGE(built.is_ok(), built.status().message());
  const Graph& graph = built.value().graphs[0].graph;
  CHECK(metadata(graph, "architecture") == "lstm");
  CHECK(metadata(graph, "decode_token_input").empty());
  CHECK(metadata(graph, "decode_logits_output").empty());
}

}  // namespace normrt
