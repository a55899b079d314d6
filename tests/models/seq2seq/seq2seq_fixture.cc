#include "seq2seq_fixture.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

namespace normrt::test {
namespace {

// The values of one tensor of the expected file, whose dtype must be `dtype`.
template <typename T>
std::vector<T> values(const SafetensorsFile& file, const std::string& name, const char* dtype) {
  const SourceTensor* t = file.find(name);
  REQUIRE_MESSAGE(t != nullptr, file.description() << ": no tensor '" << name << "'");
  REQUIRE_MESSAGE(t->dtype == dtype, name << ": dtype " << t->dtype << ", expected " << dtype);
  REQUIRE(t->size % sizeof(T) == 0);
  std::vector<T> out(t->size / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), t->data, t->size);
  return out;
}

// make_fixtures.py's constants and per-case settings.
TorchTransformerConfig config_of(const std::string& name) {
  TorchTransformerConfig c;
  c.src_vocab_size = c.tgt_vocab_size = 50;
  c.d_model = 32;
  c.nhead = 4;
  c.num_encoder_layers = c.num_decoder_layers = 2;
  c.dim_feedforward = 64;
  c.max_positions = 16;
  c.norm_first = name.rfind("pre_", 0) == 0;
  c.activation = name.find("gelu") != std::string::npos ? "gelu" : "relu";
  c.encoder_final_norm = c.decoder_final_norm = name.find("_nofinal") == std::string::npos;
  if (name.find("_prms_") != std::string::npos) {
    c.norm.kind = NormKind::kPRmsNorm;  // RMSNorm(d, 0.25, 1e-8, eps_added=True)
    c.norm.p = 0.25;
    c.norm.eps = 1e-8;
    c.norm.eps_placement = EpsPlacement::kAddedToRms;
  } else if (name.find("_rms_") != std::string::npos) {
    c.norm.kind = NormKind::kRmsNorm;  // RMSNorm(d, 1.0, 1e-6, eps_added=False)
    c.norm.eps = 1e-6;
  }  // else nn.LayerNorm, eps 1e-5 (the NormConfig default)
  return c;
}

}  // namespace

const std::vector<std::string>& seq2seq_case_names() {
  static const std::vector<std::string> names = {"post_ln_relu", "pre_ln_gelu", "pre_rms_gelu",
                                                 "post_prms_gelu_nofinal"};
  return names;
}

Seq2SeqFixture load_seq2seq_fixture(const std::string& name) {
  const std::string dir = NORMRT_SEQ2SEQ_FIXTURE_DIR;
  Seq2SeqFixture f;
  f.name = name;
  f.config = config_of(name);
  auto weights = SafetensorsFile::open(dir + "/" + name + ".safetensors");
  REQUIRE_MESSAGE(weights.is_ok(), weights.status().message());
  f.weights = std::move(weights).value();
  auto expected = SafetensorsFile::open(dir + "/" + name + ".expected.safetensors");
  REQUIRE_MESSAGE(expected.is_ok(), expected.status().message());
  f.src_ids = values<int32_t>(*expected.value(), "src_ids", "I32");
  f.tgt_ids = values<int32_t>(*expected.value(), "tgt_ids", "I32");
  f.greedy_ids = values<int32_t>(*expected.value(), "greedy_ids", "I32");
  f.logits = values<float>(*expected.value(), "logits", "F32");
  REQUIRE(f.logits.size() == f.tgt_ids.size() * static_cast<size_t>(f.config.tgt_vocab_size));
  for (float v : f.logits) f.max_abs_logit = std::max(f.max_abs_logit, double(std::fabs(v)));
  return f;
}

}  // namespace normrt::test
