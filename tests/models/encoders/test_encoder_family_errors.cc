// The encoder families' refusals and detection: which registry entry a
// config.json of each kind of checkpoint people use selects (BGE, E5 and GTE
// are BertModel or XLMRobertaModel configs; rerankers are *ForSequence-
// Classification), and clear errors for what does not fit.
#include <doctest/doctest.h>

#include <string>

#include "encoder_fixture.h"
#include "formats/json/json_config.h"
#include "models/registry.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

JsonConfig parse(const std::string& text) {
  auto config = JsonConfig::parse(text, "config.json");
  REQUIRE_MESSAGE(config.is_ok(), config.status().message());
  return config.value();
}

std::string detected(const std::string& text) {
  auto entry = detect_architecture(parse(text));
  REQUIRE_MESSAGE(entry.is_ok(), entry.status().message());
  return entry.value()->name;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kDir = NORMRT_ENCODER_FIXTURE_DIR;

// The error of building the config of `config_dir` with the weights of `weights_dir`.
std::string build_error(const std::string& config_dir, const std::string& weights_dir,
                        const ModelBuildOptions& options = {}) {
  auto config = JsonConfig::load(kDir + "/" + config_dir + "/config.json");
  REQUIRE(config.is_ok());
  auto entry = detect_architecture(config.value());
  REQUIRE(entry.is_ok());
  auto weights = SafetensorsFile::open(kDir + "/" + weights_dir + "/model.safetensors");
  REQUIRE(weights.is_ok());
  auto built = build_model(*entry.value(), config.value(), *weights.value(), options);
  REQUIRE(!built.is_ok());
  return built.status().message();
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE("configs of the embedding models and rerankers people use select their entries") {
    // BAAI/bge-small-en-v1.5, intfloat/e5-small-v2: BertModel configs (their full
    // key sets convert in test_embedding_model_configs.cc).
    const char* bert_model = R"({"architectures": ["BertModel"], "model_type": "bert",
        "hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 1536, "vocab_size": 30522, "hidden_act": "gelu",
        "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
        "position_embedding_type": "absolute", "pad_token_id": 0})";
    CHECK(detected(bert_model) == "bert_encoder");
    // BAAI/bge-m3: an XLMRobertaModel config.
    CHECK(detected(R"({"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta",
        "pad_token_id": 1, "vocab_size": 250002})") == "roberta_encoder");
    CHECK(detected(R"({"architectures": ["RobertaModel"]})") == "roberta_encoder");
    CHECK(detected(R"({"architectures": ["DistilBertModel"], "model_type": "distilbert"})") ==
          "distilbert_encoder");
    // cross-encoder/ms-marco-MiniLM-*: BertForSequenceClassification;
    // BAAI/bge-reranker-large, -v2-m3: XLMRobertaForSequenceClassification.
    CHECK(
        detected(R"({"architectures": ["BertForSequenceClassification"], "model_type": "bert"})") ==
        "bert_sequence_classifier");
    CHECK(detected(R"({"architectures": ["XLMRobertaForSequenceClassification"],
        "model_type": "xlm-roberta"})") == "roberta_sequence_classifier");
    CHECK(detected(R"({"architectures": ["RobertaForSequenceClassification"]})") ==
          "roberta_sequence_classifier");
    // A pretraining checkpoint's class is an encoder (its heads are unused tensors).
    CHECK(detected(R"({"architectures": ["BertForMaskedLM"], "model_type": "bert"})") ==
          "bert_encoder");
    CHECK(
        detected(R"({"architectures": ["XLMRobertaForMaskedLM"], "model_type": "xlm-roberta"})") ==
        "roberta_encoder");
  }

  TEST_CASE("GTE v1.5 (model_type 'new', remote code) is refused by name") {
    auto entry = detect_architecture(parse(R"({"architectures": ["NewModel"],
        "model_type": "new", "auto_map": {"AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel"}})"));
    REQUIRE(!entry.is_ok());
    CHECK(contains(entry.status().message(), "unknown model_type 'new'"));
    CHECK(contains(entry.status().message(), "'xlm-roberta' (roberta_encoder)"));
    CHECK(contains(entry.status().message(), "'distilbert' (distilbert_encoder)"));
  }

  TEST_CASE("a RoBERTa pad_token_id that leaves no position is a config error naming the key") {
    JsonConfig config = parse(R"({"model_type": "roberta", "vocab_size": 10, "hidden_size": 8,
        "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8,
        "max_position_embeddings": 5, "pad_token_id": 4})");
    auto entry = detect_architecture(config);
    REQUIRE(entry.is_ok());
    Status s = entry.value()->read_config(config, {});
    CHECK(contains(s.message(), "key 'pad_token_id'"));
    CHECK(contains(s.message(), "padding_idx = 4 leaves no position"));
  }

  TEST_CASE("a sequence classifier refuses --pooling: its output is the logits") {
    ModelBuildOptions options;
    options.pooling.mode = "mean";
    const std::string message = build_error("tiny_bert_cls", "tiny_bert_cls", options);
    CHECK(contains(message, "pooling 'mean' with a sequence classifier"));
  }

  TEST_CASE("DistilBERT's missing tensors are named as its checkpoint names them") {
    const std::string message = build_error("tiny_distilbert", "tiny_bert_cls");
    CHECK(contains(message, "transformer.layer.0.attention.q_lin.weight"));
    CHECK(contains(message, "transformer.layer.1.output_layer_norm.bias"));
    CHECK(contains(message, "unknown tensor"));
  }

  TEST_CASE("a classifier checkpoint without its head is an error naming the head's tensors") {
    // tiny_xlmr is an XLMRobertaModel: no classifier.* tensors.
    const std::string message = build_error("tiny_xlmr_cls", "tiny_xlmr");
    CHECK(contains(message, "classifier.dense.weight"));
    CHECK(contains(message, "classifier.out_proj.weight"));
  }

  TEST_CASE("a RoBERTa sequence longer than its positions allow is refused, not wrapped") {
    // max_position_embeddings 64, padding_idx 1: at most 62 tokens.
    auto model = test::build_fixture_model(kDir + "/tiny_roberta", {}, true);
    REQUIRE(model.is_ok());
    auto session = Session::create(model.value());
    REQUIRE(session.is_ok());
    std::vector<int32_t> ids(62, 5);
    CHECK(test::run_ids(*session.value(), ids, "last_hidden_state").is_ok());
    ids.push_back(5);
    auto refused = test::run_ids(*session.value(), ids, "last_hidden_state");
    REQUIRE(!refused.is_ok());
    CHECK(contains(refused.status().message(), "1 ≤ S ≤ 62"));
  }
}

}  // namespace normrt
