#include "tests/tools/convert/convert_test_support.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "normrt/normrt.hpp"
#include "tests/support/scratch_dir.h"

namespace normrt::testing {

std::string scratch_path(const std::string& name) {
  const std::string path = test::scratch_dir(NORMRT_CONVERT_SCRATCH_DIR, "scratch") + "/" + name;
  std::remove(path.c_str());
  return path;
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string rnn_fixture(const std::string& name, const std::string& suffix) {
  return std::string(NORMRT_RNN_FIXTURE_DIR) + "/" + name + suffix;
}

std::string bert_fixture(const std::string& name) {
  return std::string(NORMRT_BERT_FIXTURE_DIR) + "/" + name;
}

std::string tiny_bert_config_json() {
  return R"({"model_type": "bert", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2,
             "num_attention_heads": 4, "intermediate_size": 37, "max_position_embeddings": 40})";
}

void write_safetensors(const std::string& path, const std::vector<SourceTensor>& tensors) {
  std::string header = "{";
  std::string data;
  for (const SourceTensor& t : tensors) {
    if (header.size() > 1) header += ",";
    header += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + t.size) + "]}";
    data.append(reinterpret_cast<const char*>(t.data), t.size);
  }
  header += "}";
  const uint64_t length = header.size();
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  write_text(path, file + header + data);
}

ProcessResult run_convert_binary(const std::vector<std::string>& args) {
  const std::string out = scratch_path("binary.out"), err = scratch_path("binary.err");
  std::string command = "'" NORMRT_CONVERT_BINARY "'";
  for (const std::string& a : args) command += " '" + a + "'";  // test paths hold no quotes
  command += " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(out);
  result.err = read_text(err);
  return result;
}

std::vector<float> run_model_file(const std::string& model_path, const std::string& input_name,
                                  const void* input, size_t input_bytes, const std::string& output,
                                  const ModelOptions& options) {
  auto model = Model::load(model_path, options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  auto session = Session::create(model.value());
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  Status bound = session.value()->set_input(input_name, input, input_bytes);
  REQUIRE_MESSAGE(bound.is_ok(), bound.message());
  Status ran = session.value()->run();
  REQUIRE_MESSAGE(ran.is_ok(), ran.message());
  auto y = session.value()->output(output);
  REQUIRE_MESSAGE(y.is_ok(), y.status().message());
  return std::vector<float>(y.value().f32(), y.value().f32() + y.value().elements());
}

std::string model_metadata(const std::string& model_path, const std::string& key) {
  auto model = Model::load(model_path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value()->metadata(key);
}

}  // namespace normrt::testing
