#pragma once
// Bounds on Transformer configs that keep every shape product far from
// overflow, so that a corrupt config cannot make a builder allocate blindly;
// shared by the BERT, Llama and nn.Transformer builders.
#include <cstdint>
#include <string>

#include "base/status.h"

namespace normrt {

constexpr int64_t kMaxVocab = int64_t{1} << 22;
constexpr int64_t kMaxWidth = int64_t{1} << 16;
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxPositions = int64_t{1} << 20;

/// An error "<model> config: <field> = v is outside [min, max]" unless v is in range.
inline Status check_config_range(const char* model, const char* field, int64_t value, int64_t min,
                                 int64_t max) {
  if (value >= min && value <= max) return Status::ok();
  return Status::error(std::string(model) + " config: " + field + " = " + std::to_string(value) +
                       " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
}

}  // namespace normrt
