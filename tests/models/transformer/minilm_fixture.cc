#include "tests/models/transformer/minilm_fixture.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "formats/json/json_config.h"
#include "tests/support/hex.h"

namespace normrt::testing {

std::vector<MinilmSentence> read_minilm_sentences(const std::string& file) {
  std::ifstream in(std::string(NORMRT_BERT_FIXTURE_DIR) + "/" + file);
  REQUIRE(in);
  std::vector<MinilmSentence> sentences;
  std::string key;
  while (in >> key) {
    size_t n = 0;
    if (key == "sentence") {
      MinilmSentence s;
      std::string hex;
      in >> hex >> n;
      s.text = test::decode_hex(hex);
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

Expected<BertConfig> read_minilm_config(const std::string& path) {
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

double cosine(const float* got, const std::vector<double>& want) {
  double dot = 0, norm_got = 0, norm_want = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    dot += got[i] * want[i];
    norm_got += double(got[i]) * got[i];
    norm_want += want[i] * want[i];
  }
  return dot / std::sqrt(norm_got * norm_want);
}

}  // namespace normrt::testing
