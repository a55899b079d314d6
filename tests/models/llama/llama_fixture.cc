#include "llama_fixture.h"

#include <fstream>
#include <sstream>

namespace normrt::test {
namespace {

Status bad(const std::string& path, int line, const std::string& what) {
  return Status::error(path + ":" + std::to_string(line) + ": " + what);
}

bool read_ids(std::istringstream& in, std::vector<int32_t>* ids) {
  size_t n = 0;
  if (!(in >> n) || n > 4096) return false;
  ids->resize(n);
  for (int32_t& id : *ids)
    if (!(in >> id)) return false;
  return true;
}

}  // namespace

std::string llama_fixture_dir() { return NORMRT_LLAMA_FIXTURE_DIR; }

Expected<LlamaFixture> read_llama_fixture(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status::error(path + ": cannot open");
  LlamaFixture fixture;
  std::string text;
  int line = 0;
  while (std::getline(file, text)) {
    ++line;
    std::istringstream in(text);
    std::string key;
    if (!(in >> key)) continue;
    if (key == "prompt") {
      if (!read_ids(in, &fixture.prompt)) return bad(path, line, "bad prompt ids");
      continue;
    }
    const size_t dot = key.find('.');
    if (dot == std::string::npos) return bad(path, line, "unknown key '" + key + "'");
    LlamaVariant& variant = fixture.variants[key.substr(0, dot)];
    const std::string field = key.substr(dot + 1);
    if (field == "generated") {
      if (!read_ids(in, &variant.generated)) return bad(path, line, "bad generated ids");
    } else if (field == "min_margin") {
      continue;
    } else if (field == "prompt_logits" || field == "decode_logits") {
      Logits& logits = field == "prompt_logits" ? variant.prompt_logits : variant.decode_logits;
      if (!(in >> logits.rows >> logits.cols) || logits.rows > 4096 || logits.cols > 1 << 20)
        return bad(path, line, "bad logits shape");
      for (size_t r = 0; r < logits.rows; ++r) {
        ++line;
        if (!std::getline(file, text)) return bad(path, line, "missing logits row");
        std::istringstream values(text);
        for (size_t c = 0; c < logits.cols; ++c) {
          double v = 0;
          if (!(values >> v))
            return bad(path, line, "expected " + std::to_string(logits.cols) + " values");
          logits.values.push_back(v);
        }
      }
    } else {
      return bad(path, line, "unknown key '" + key + "'");
    }
  }
  return fixture;
}

LlamaConfig tiny_llama_config(bool tied) {
  LlamaConfig c;
  c.vocab_size = 97;
  c.hidden_size = 32;
  c.intermediate_size = 64;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 64;
  c.tie_word_embeddings = tied;
  return c;
}

}  // namespace normrt::test
