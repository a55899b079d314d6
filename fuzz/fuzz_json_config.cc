// libFuzzer target: the input bytes as a converter config file — JSON text
// through JsonConfig::parse() (the depth pre-scan, nlohmann's parser), every
// typed accessor on every top-level key, then architecture detection and the
// config reader of every architecture of the model registry
// (models/registry.h), whatever the detected one, plus the shared norm
// reader: a reader must turn any object into a config or an error.
// nlohmann throws on misuse (a type error, a missing key through at()); an
// exception escaping here terminates, which the fuzzer reports as a crash.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "formats/json/json_config.h"
#include "fuzz/fuzz_check.h"
#include "models/config_json.h"
#include "models/registry.h"

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
  Expected<const Architecture*> detected = detect_architecture(config);
  if (detected) FUZZ_CHECK(*detected != nullptr, "detected a null architecture");
  (void)read_norm_config(config);
  // norm and p come from normrt-convert's --norm / --p, not from the file.
  ModelBuildOptions plain, partial;
  partial.norm = "prms_norm";
  partial.p = 0.5;
  partial.allow_norm_change = true;
  for (const Architecture* architecture : architectures()) {
    (void)architecture->read_config(config, plain);
    (void)architecture->read_config(config, partial);
  }
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
