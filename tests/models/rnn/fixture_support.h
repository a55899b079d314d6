#pragma once
// The fixtures of test_models_rnn (written by make_fixtures.py): an in-memory
// WeightSource read from a tiny safetensors file by a reader of the test's
// own (the converter's reader is tested elsewhere), and the configs from
// their JSON. Test-only: the converter owns the real JSON → config mapping.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_config.h"
#include "models/weight_source.h"

namespace normrt::testing {

/// Tensors that own their bytes; editable, for the error tests.
class MemorySource : public WeightSource {
 public:
  /// Reads a safetensors file; errors name the path and the byte offset.
  static Expected<MemorySource> read_safetensors(const std::string& path);

  MemorySource() = default;
  // Copies point their views at their own bytes.
  MemorySource(const MemorySource& other)
      : tensors_(other.tensors_), description_(other.description_) {
    refresh_views();
  }
  MemorySource& operator=(const MemorySource& other) {
    tensors_ = other.tensors_;
    description_ = other.description_;
    refresh_views();
    return *this;
  }
  MemorySource(MemorySource&&) = default;  // moved vectors keep their buffers
  MemorySource& operator=(MemorySource&&) = default;

  const SourceTensor* find(std::string_view name) const override;
  std::vector<std::string> names() const override;
  std::string description() const override { return description_; }

  void add(std::string name, std::string dtype, std::vector<int64_t> shape,
           std::vector<std::byte> bytes);
  void add_f32(std::string name, std::vector<int64_t> shape, const std::vector<float>& values);
  void remove(const std::string& name);
  /// Replaces a tensor's shape, keeping its bytes.
  void reshape(const std::string& name, std::vector<int64_t> shape);

 private:
  void refresh_views();
  struct Owned {
    SourceTensor view;
    std::vector<std::byte> bytes;
  };
  std::vector<Owned> tensors_;
  std::string description_ = "memory";
};

/// The F32 or I32 elements of a tensor (as float / int32).
std::vector<float> f32_values(const SourceTensor& tensor);
std::vector<int32_t> i32_values(const SourceTensor& tensor);

/// tests/models/rnn/fixtures/<name><suffix>.
std::string fixture_path(const std::string& name, const std::string& suffix);

/// The "architecture" key of a fixture's config: "lstm", "gru" or "mlp".
Expected<std::string> fixture_architecture(const std::string& name);
Expected<RnnConfig> fixture_rnn_config(const std::string& name);
Expected<MlpConfig> fixture_mlp_config(const std::string& name);

}  // namespace normrt::testing
