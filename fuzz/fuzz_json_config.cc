// libFuzzer target: the input bytes as a converter config file — JSON text
// through JsonConfig::parse() (the depth pre-scan, nlohmann's parser), every
// typed accessor on every top-level key, then model family detection and
// every config reader of tools/convert/model_config.h (BERT, Llama, LSTM,
// GRU, MLP, norm, torch_transformer, Nematus RNNSearch), whatever the
// detected family: a reader must turn any object into a config or an error.
// nlohmann throws on misuse (a type error, a missing key through at()); an
// exception escaping here terminates, which the fuzzer reports as a crash.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "tools/convert/model_config.h"
#include "formats/json/json_config.h"

namespace {

using namespace normrt;

void read_every_key(const JsonConfig& config) {
  std::vector<std::string> keys;
  for (const auto& item : config.root().items()) keys.push_back(item.key());
  for (const std::string& key : keys) {
    (void)config.has(key);
    (void)config.require_int(key);
    (void)config.optional_int(key, 0);
    (void)config.require_double(key);
    (void)config.optional_double(key, 0.0);
    (void)config.require_string(key);
    (void)config.optional_string(key, "");
    (void)config.require_bool(key);
    (void)config.optional_bool(key, false);
  }
  (void)config.require_int("");  // an absent key
}

void read_every_family(const JsonConfig& config) {
  Expected<ModelFamily> family = detect_model_family(config);
  if (family) FUZZ_CHECK(std::string(model_family_name(*family)) != "invalid", "bad family");
  (void)read_bert_config(config);
  (void)read_llama_config(config);
  (void)read_rnn_config(config, /*is_lstm=*/true);
  (void)read_rnn_config(config, /*is_lstm=*/false);
  (void)read_mlp_config(config);
  (void)read_norm_config(config);
  (void)read_torch_transformer_config(config);
  // norm and p come from normrt-convert's --norm / --p, not from the file.
  (void)read_rnnsearch_config(config, "", 0.0);
  (void)read_rnnsearch_config(config, "prms_norm", 0.5);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Expected<JsonConfig> config = JsonConfig::parse(text, "config.json");
  if (!config) return 0;
  FUZZ_CHECK(config->root().is_object(), "a config whose top level is %s",
             config->root().type_name());
  read_every_key(*config);
  read_every_family(*config);
  return 0;
}
