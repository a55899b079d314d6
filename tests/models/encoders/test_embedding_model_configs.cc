// The config.json files of BGE and E5 embedding models carry more keys than
// the tiny fixtures (id2label, nulls, dropout, dtype, ...). Each is taken
// key for key as published (BAAI/bge-small-en-v1.5 written by transformers
// 5.9, intfloat/e5-small-v2 by 4.29), with only the sizes shrunk to those of
// tests/models/transformer/tiny_bert_gelu, and must convert with that
// model's weights into BERT's encoder and give PyTorch's float64 output.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "encoder_fixture.h"
#include "formats/json/json_config.h"
#include "runtime/exec/compiled_model.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

const std::string kTinyBert = NORMRT_BERT_FIXTURE_DIR "/tiny_bert_gelu";

// bge-small-en-v1.5's config.json: hidden 384 → 32, layers 12 → 2, heads 12 → 4,
// intermediate 1536 → 37, vocab 30522 → 64, positions 512 → 40.
const char* kBgeSmall = R"({
  "add_cross_attention": false, "architectures": ["BertModel"],
  "attention_probs_dropout_prob": 0.1, "bos_token_id": null, "classifier_dropout": null,
  "dtype": "float32", "eos_token_id": null, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 32, "id2label": {"0": "LABEL_0"}, "initializer_range": 0.02,
  "intermediate_size": 37, "is_decoder": false, "label2id": {"LABEL_0": 0},
  "layer_norm_eps": 1e-12, "max_position_embeddings": 40, "model_type": "bert",
  "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": 0,
  "position_embedding_type": "absolute", "tie_word_embeddings": true,
  "transformers_version": "5.9.0", "type_vocab_size": 2, "use_cache": true, "vocab_size": 64})";

// e5-small-v2's config.json, the same sizes shrunk.
const char* kE5Small = R"({
  "_name_or_path": "tmp/", "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1,
  "classifier_dropout": null, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 37,
  "layer_norm_eps": 1e-12, "max_position_embeddings": 40, "model_type": "bert",
  "num_attention_heads": 4, "num_hidden_layers": 2, "pad_token_id": 0,
  "position_embedding_type": "absolute", "torch_dtype": "float32",
  "transformers_version": "4.29.0.dev0", "type_vocab_size": 2, "use_cache": true,
  "vocab_size": 64})";

// The ids and PyTorch's last_hidden_state (S = 7) of tiny_bert_gelu.expected.txt.
void read_expected(std::vector<int32_t>& ids, std::vector<double>& want) {
  std::ifstream in(kTinyBert + ".expected.txt");
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind == "ids") {
      size_t n = 0;
      fields >> n;
      ids.resize(n);
      for (int32_t& id : ids) fields >> id;
    } else if (kind == "last_hidden_state") {
      size_t s = 0, rows = 0, cols = 0;
      fields >> s >> rows >> cols;
      if (s != 7) continue;
      want.resize(rows * cols);
      for (double& v : want) fields >> v;
    }
  }
  REQUIRE(ids.size() == 7);
  REQUIRE(want.size() == 7 * 32);
}

}  // namespace

TEST_SUITE("encoder_families") {
  TEST_CASE("BGE and E5 config.json files (BertModel) convert and give BERT's outputs") {
    std::vector<int32_t> ids;
    std::vector<double> want;
    read_expected(ids, want);
    auto weights = SafetensorsFile::open(kTinyBert + ".safetensors");
    REQUIRE(weights.is_ok());
    for (const char* text : {kBgeSmall, kE5Small}) {
      auto config = JsonConfig::parse(text, "config.json");
      REQUIRE_MESSAGE(config.is_ok(), config.status().message());
      auto entry = detect_architecture(config.value());
      REQUIRE(entry.is_ok());
      // id2label alone does not make a BertModel a classifier.
      CHECK(std::string(entry.value()->name) == "bert_encoder");
      ModelBuildOptions options;
      options.pooling.mode = "cls";  // BGE's pooling (1_Pooling/config.json)
      options.pooling.normalize = false;
      auto built = build_model(*entry.value(), config.value(), *weights.value(), options);
      REQUIRE_MESSAGE(built.is_ok(), built.status().message());
      auto model = compile_model(std::move(built.value().graphs.at(0).graph), {});
      REQUIRE(model.is_ok());
      auto session = Session::create(model.value());
      REQUIRE(session.is_ok());
      auto got = test::run_ids(*session.value(), ids, "embedding");
      REQUIRE_MESSAGE(got.is_ok(), got.status().message());
      // CLS pooling: the first row of the last hidden state.
      std::vector<double> first_row(want.begin(), want.begin() + 32);
      test::Comparison cmp = test::compare(got.value(), first_row, 1e-5, 1e-4);
      CHECK_MESSAGE(cmp.first_failure.empty(), cmp.first_failure);
      CHECK(cmp.relative <= 1e-4);
    }
  }
}

}  // namespace normrt
