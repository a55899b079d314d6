#pragma once
// Typed access to a JSON config file (Hugging Face config.json, normrt's RNN
// configs): each accessor names the file and the key in its error, with the
// expected and the found type ("config.json: key 'hidden_size', expected an
// integer, found string \"768\""). A key whose value is null counts as
// absent (Hugging Face writes nulls for unset options).
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "base/status.h"

namespace normrt {

class JsonConfig {
 public:
  /// Reads and parses `path`; syntax errors give the line, column and byte
  /// offset. The top level must be an object.
  static Expected<JsonConfig> load(const std::string& path);
  /// The same on text in memory; `description` starts the error messages.
  static Expected<JsonConfig> parse(std::string_view text, std::string description);

  /// True when `key` is present and not null.
  bool has(std::string_view key) const;

  Expected<int64_t> require_int(std::string_view key) const;
  Expected<int64_t> optional_int(std::string_view key, int64_t fallback) const;
  /// Accepts integers too (1 reads as 1.0).
  Expected<double> require_double(std::string_view key) const;
  Expected<double> optional_double(std::string_view key, double fallback) const;
  Expected<std::string> require_string(std::string_view key) const;
  Expected<std::string> optional_string(std::string_view key, std::string fallback) const;
  Expected<bool> require_bool(std::string_view key) const;
  Expected<bool> optional_bool(std::string_view key, bool fallback) const;

  /// The whole document, for what the accessors do not cover (nested objects,
  /// lists); include <nlohmann/json.hpp> to use it.
  const nlohmann::json& root() const { return *root_; }
  const std::string& description() const { return description_; }

 private:
  JsonConfig(std::string description, std::shared_ptr<const nlohmann::json> root)
      : description_(std::move(description)), root_(std::move(root)) {}

  std::string description_;
  std::shared_ptr<const nlohmann::json> root_;  // shared: JsonConfig copies cheaply
};

}  // namespace normrt
