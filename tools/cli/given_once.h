#pragma once
// Command-line options that take one value: a second occurrence is an error
// naming both values, not a silent override (a copied command line with
// "--dtype int8 ... --dtype bf16" would otherwise convert as bf16 unnoticed).
#include <map>
#include <string>
#include <string_view>

#include "normrt/status.h"

namespace normrt::cli {

class GivenOnce {
 public:
  /// Records `flag` = `value`; an error if `flag` was given before.
  Status note(std::string_view flag, const std::string& value) {
    auto [it, inserted] = values_.emplace(std::string(flag), value);
    if (inserted) return Status::ok();
    return Status::error(std::string(flag) + " given twice ('" + it->second + "', then '" + value +
                         "'): give it once");
  }

  bool has(std::string_view flag) const { return values_.count(std::string(flag)) != 0; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace normrt::cli
