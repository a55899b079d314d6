#pragma once
// Shared by the converter tests: scratch files, a minimal safetensors writer
// (for broken inputs), running the normrt-convert binary, and running a
// converted model file.
#include <cstdint>
#include <string>
#include <vector>

#include "models/weight_source.h"
#include "normrt/normrt.hpp"

namespace normrt::testing {

/// <build dir>/scratch-<pid>/<name> (test::scratch_dir: the folder created on
/// first use, removed when the process exits); the
/// file itself is removed first so that "does not exist afterwards" checks
/// are meaningful.
std::string scratch_path(const std::string& name);
bool file_exists(const std::string& path);
void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);

/// tests/models/rnn/fixtures/<name><suffix>; tests/models/transformer/<name>.
std::string rnn_fixture(const std::string& name, const std::string& suffix);
std::string bert_fixture(const std::string& name);

/// A Hugging Face config.json for tiny_bert_gelu.safetensors (V = 64, H = 32,
/// 2 layers, 4 heads, intermediate 37, 40 positions).
std::string tiny_bert_config_json();

/// Writes `tensors` (data as given) as a safetensors file.
void write_safetensors(const std::string& path, const std::vector<SourceTensor>& tensors);

struct ProcessResult {
  int exit_code = -1;
  std::string out, err;
};
/// Runs the normrt-convert binary with `args` (each shell-quoted).
ProcessResult run_convert_binary(const std::vector<std::string>& args);

/// Loads `model_path` with normrt::Model::load, feeds `input` (f32 "x", or
/// i32 "ids" / "input_ids" as int32 bytes) and returns the f32 `output`.
/// REQUIREs success. `metadata` receives Model::metadata(key) for the keys asked.
std::vector<float> run_model_file(const std::string& model_path, const std::string& input_name,
                                  const void* input, size_t input_bytes, const std::string& output,
                                  const ModelOptions& options = {});
std::string model_metadata(const std::string& model_path, const std::string& key);

}  // namespace normrt::testing
