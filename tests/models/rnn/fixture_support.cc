#include "tests/models/rnn/fixture_support.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace normrt::testing {
namespace {

// Object members in file order: the safetensors header's order is the order
// the tensors are added in.
using Json = nlohmann::ordered_json;

Expected<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Expected<Json> parse_json(const std::string& text, const std::string& where) {
  Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::error(where + ": not valid JSON");
  return json;
}

Expected<Json> read_config(const std::string& name) {
  const std::string path = fixture_path(name, ".json");
  NORMRT_ASSIGN_OR_RETURN(std::string text, read_file(path));
  NORMRT_ASSIGN_OR_RETURN(Json json, parse_json(text, path));
  if (!json.is_object()) return Status::error(path + ": not a JSON object");
  return json;
}

double number(const Json& config, const char* key, double fallback) {
  auto it = config.find(key);
  return it != config.end() && it->is_number() ? it->get<double>() : fallback;
}
std::string text(const Json& config, const char* key, const std::string& fallback) {
  auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : fallback;
}

NormConfig norm_config(const Json& config) {
  NormConfig norm;
  norm.kind = text(config, "norm", norm.kind);
  norm.eps = number(config, "eps", norm.eps);
  norm.eps_placement = text(config, "eps_placement", norm.eps_placement);
  norm.gain_convention = text(config, "gain_convention", norm.gain_convention);
  norm.p = number(config, "p", norm.p);
  return norm;
}

// The numbers of an array member (empty if `value` is not an array of numbers).
std::vector<double> numbers(const Json& value) {
  std::vector<double> out;
  if (!value.is_array()) return out;
  for (const Json& v : value) {
    if (!v.is_number()) return {};
    out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

Expected<MemorySource> MemorySource::read_safetensors(const std::string& path) {
  NORMRT_ASSIGN_OR_RETURN(const std::string bytes, read_file(path));
  uint64_t header_size = 0;
  if (bytes.size() < 8) return Status::error(path + ": shorter than the 8-byte header length");
  std::memcpy(&header_size, bytes.data(), 8);
  if (header_size > bytes.size() - 8)
    return Status::error(path + ": header of " + std::to_string(header_size) +
                         " bytes at offset 8 runs past the end");
  NORMRT_ASSIGN_OR_RETURN(const Json header, parse_json(bytes.substr(8, header_size), path));
  if (!header.is_object()) return Status::error(path + ": header is not a JSON object");
  const size_t data_start = 8 + header_size, data_size = bytes.size() - data_start;
  MemorySource source;
  source.description_ = path;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::vector<double> offsets =
        entry.contains("data_offsets") ? numbers(entry["data_offsets"]) : std::vector<double>{};
    if (offsets.size() != 2 || !entry.contains("shape") || !entry["shape"].is_array())
      return Status::error(path + ": tensor '" + name + "' lacks shape or data_offsets");
    const double begin = offsets[0], end = offsets[1];
    if (!(begin >= 0 && begin <= end && end <= static_cast<double>(data_size)))
      return Status::error(path + ": tensor '" + name + "' data_offsets outside the " +
                           std::to_string(data_size) + " data bytes");
    std::vector<int64_t> dims;
    for (double d : numbers(entry["shape"])) dims.push_back(static_cast<int64_t>(d));
    const auto* first = reinterpret_cast<const std::byte*>(bytes.data() + data_start);
    source.add(name, text(entry, "dtype", "?"), dims,
               std::vector<std::byte>(first + static_cast<size_t>(begin),
                                      first + static_cast<size_t>(end)));
  }
  return source;
}

const SourceTensor* MemorySource::find(std::string_view name) const {
  for (const Owned& t : tensors_)
    if (t.view.name == name) return &t.view;
  return nullptr;
}

std::vector<std::string> MemorySource::names() const {
  std::vector<std::string> out;
  for (const Owned& t : tensors_) out.push_back(t.view.name);
  return out;
}

void MemorySource::add(std::string name, std::string dtype, std::vector<int64_t> shape,
                       std::vector<std::byte> bytes) {
  tensors_.push_back(
      {{std::move(name), std::move(dtype), std::move(shape), nullptr, 0}, std::move(bytes)});
  refresh_views();
}

void MemorySource::refresh_views() {
  for (Owned& t : tensors_) {
    t.view.data = t.bytes.data();
    t.view.size = t.bytes.size();
  }
}

void MemorySource::add_f32(std::string name, std::vector<int64_t> shape,
                           const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  add(std::move(name), "F32", std::move(shape), std::move(bytes));
}

void MemorySource::remove(const std::string& name) {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].view.name == name) {
      tensors_.erase(tensors_.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
  refresh_views();
}

void MemorySource::reshape(const std::string& name, std::vector<int64_t> shape) {
  for (Owned& t : tensors_)
    if (t.view.name == name) t.view.shape = shape;
}

std::vector<float> f32_values(const SourceTensor& tensor) {
  std::vector<float> out(tensor.dtype == "F32" ? tensor.size / 4 : 0);
  if (!out.empty()) std::memcpy(out.data(), tensor.data, out.size() * 4);
  return out;
}

std::vector<int32_t> i32_values(const SourceTensor& tensor) {
  std::vector<int32_t> out(tensor.dtype == "I32" ? tensor.size / 4 : 0);
  if (!out.empty()) std::memcpy(out.data(), tensor.data, out.size() * 4);
  return out;
}

std::string fixture_path(const std::string& name, const std::string& suffix) {
  return std::string(NORMRT_RNN_FIXTURE_DIR) + "/" + name + suffix;
}

Expected<std::string> fixture_architecture(const std::string& name) {
  NORMRT_ASSIGN_OR_RETURN(const Json config, read_config(name));
  return text(config, "architecture", "");
}

Expected<RnnConfig> fixture_rnn_config(const std::string& name) {
  NORMRT_ASSIGN_OR_RETURN(const Json c, read_config(name));
  RnnConfig config;
  config.input_size = static_cast<int64_t>(number(c, "input_size", 0));
  config.hidden_size = static_cast<int64_t>(number(c, "hidden_size", 0));
  config.num_layers = static_cast<int64_t>(number(c, "num_layers", 1));
  config.norm = norm_config(c);
  config.placement = text(c, "placement", config.placement);
  config.vocab_size = static_cast<int64_t>(number(c, "vocab_size", 0));
  config.output_size = static_cast<int64_t>(number(c, "output_size", 0));
  config.max_sequence_length = static_cast<int64_t>(number(c, "max_sequence_length", 256));
  return config;
}

Expected<MlpConfig> fixture_mlp_config(const std::string& name) {
  NORMRT_ASSIGN_OR_RETURN(const Json c, read_config(name));
  MlpConfig config;
  config.input_size = static_cast<int64_t>(number(c, "input_size", 0));
  config.output_size = static_cast<int64_t>(number(c, "output_size", 0));
  if (c.contains("hidden_sizes"))
    for (double size : numbers(c["hidden_sizes"]))
      config.hidden_sizes.push_back(static_cast<int64_t>(size));
  config.norm = norm_config(c);
  config.max_sequence_length = static_cast<int64_t>(number(c, "max_sequence_length", 256));
  return config;
}

}  // namespace normrt::testing
