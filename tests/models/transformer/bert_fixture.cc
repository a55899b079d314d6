#include "bert_fixture.h"

#include <fstream>
#include <sstream>

namespace normrt::test {

std::string fixture_dir() { return NORMRT_BERT_FIXTURE_DIR; }

Expected<BertFixture> read_bert_fixture(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::error(path + ": cannot open");
  BertFixture fixture;
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    bool ok = true;
    if (key == "config") {
      BertConfig& c = fixture.config;
      fields >> c.vocab_size >> c.hidden_size >> c.num_hidden_layers >> c.num_attention_heads >>
          c.intermediate_size >> c.hidden_act >> c.max_position_embeddings >> c.type_vocab_size >>
          c.layer_norm_eps >> fixture.prefix;
      if (fixture.prefix == "-") fixture.prefix.clear();
      ok = !fields.fail();
    } else if (key == "ids") {
      size_t n = 0;
      fields >> n;
      fixture.ids.resize(n);
      for (int32_t& id : fixture.ids) fields >> id;
      ok = !fields.fail() && n <= 4096;
    } else if (!key.empty()) {
      size_t s = 0;
      ExpectedOutput out;
      fields >> s >> out.rows >> out.cols;
      ok = !fields.fail() && out.rows * out.cols <= (1u << 20);
      if (ok) {
        out.values.resize(out.rows * out.cols);
        for (double& v : out.values) fields >> v;
        ok = !fields.fail();
      }
      fixture.outputs[key + "@" + std::to_string(s)] = std::move(out);
    }
    if (!ok)
      return Status::error(path + ":" + std::to_string(number) + ": malformed '" + key + "' line");
  }
  return fixture;
}

}  // namespace normrt::test
