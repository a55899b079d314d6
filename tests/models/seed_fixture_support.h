#pragma once
// Shared by the tests of issue 21's remaining systems (attentive reader,
// order embeddings, handwriting): a fixture's tensors read from its
// .io.safetensors (inputs as stored, references as double), the fixture
// converted by the real converter, and a session run on named inputs.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt::testing {

/// One tensor of a .io.safetensors: its raw elements widened to double (F32,
/// F64, I32) and, for I32/F32, the original 4-byte elements.
struct IoTensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;
  std::vector<int32_t> i32;
  std::vector<float> f32;
};
std::map<std::string, IoTensor> read_io(const std::string& path);

/// Converts `config_path` + `weights_path` into `output_path` with convert();
/// REQUIREs success and returns the summary's architecture.
std::string convert_fixture(const std::string& config_path, const std::string& weights_path,
                            const std::string& output_path, int64_t max_seq = 0);
/// The converter's error message, or "converted".
std::string convert_error(const std::string& config_text, const std::string& weights_path,
                          const std::string& scratch_dir);

std::shared_ptr<const Model> load_model(const std::string& path, bool fuse);

/// max_i |got − ref| / max_i |ref|; NaN if any got is NaN (so that every
/// `<=` bound fails), infinity if any is infinite.
double relative_error(const std::vector<float>& got, const std::vector<double>& ref);
/// max_i |a − b| / max_i |b|.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b);

std::vector<float> output_values(const Session& session, const std::string& name);
std::string read_text(const std::string& path);
bool contains(const std::string& text, const std::string& part);
/// `text` with its first `from` replaced by `to` (a test failure if absent).
std::string replace_once(std::string text, const std::string& from, const std::string& to);

}  // namespace normrt::testing
