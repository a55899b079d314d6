#include "tests/models/seed_fixture_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tests/support/compare.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::testing {

std::map<std::string, IoTensor> read_io(const std::string& path) {
  auto file = SafetensorsFile::open(path);
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  std::map<std::string, IoTensor> tensors;
  for (const std::string& name : (*file)->names()) {
    const SourceTensor* t = (*file)->find(name);
    IoTensor io;
    io.dtype = t->dtype;
    io.shape = t->shape;
    if (t->dtype == "F64") {
      io.values.resize(t->size / 8);
      std::memcpy(io.values.data(), t->data, t->size);
    } else if (t->dtype == "F32") {
      io.f32.resize(t->size / 4);
      std::memcpy(io.f32.data(), t->data, t->size);
      io.values.assign(io.f32.begin(), io.f32.end());
    } else if (t->dtype == "I32") {
      io.i32.resize(t->size / 4);
      std::memcpy(io.i32.data(), t->data, t->size);
      io.values.assign(io.i32.begin(), io.i32.end());
    } else {
      FAIL("unexpected dtype " << t->dtype << " of " << name);
    }
    tensors[name] = std::move(io);
  }
  return tensors;
}

std::string convert_fixture(const std::string& config_path, const std::string& weights_path,
                            const std::string& output_path, int64_t max_seq) {
  ConvertOptions options;
  options.config_path = config_path;
  options.weights_path = weights_path;
  options.output_path = output_path;
  options.max_sequence_length = max_seq;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  return summary->architecture;
}

std::string convert_error(const std::string& config_text, const std::string& weights_path,
                          const std::string& scratch_dir) {
  const std::string config = scratch_dir + "/broken.json";
  std::ofstream(config) << config_text;
  ConvertOptions options;
  options.config_path = config;
  options.weights_path = weights_path;
  options.output_path = scratch_dir + "/broken.nrmt";
  auto summary = convert(options);
  return summary.is_ok() ? "converted" : summary.status().message();
}

std::shared_ptr<const Model> load_model(const std::string& path, bool fuse) {
  ModelOptions options;
  options.fuse = fuse;
  auto model = Model::load(path, options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return *model;
}

double relative_error(const std::vector<float>& got, const std::vector<double>& ref) {
  REQUIRE(got.size() == ref.size());
  double m = 0, worst = 0;
  for (double r : ref) m = std::max(m, std::fabs(r));
  for (size_t i = 0; i < got.size(); ++i) worst = test::worst_of(worst, std::fabs(got[i] - ref[i]));
  return m > 0 ? worst / m : worst;
}

double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  return relative_error(a, std::vector<double>(b.begin(), b.end()));
}

std::vector<float> output_values(const Session& session, const std::string& name) {
  auto out = session.output(name);
  REQUIRE_MESSAGE(out.is_ok(), out.status().message());
  return std::vector<float>(out->f32(), out->f32() + out->elements());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "'" << from << "' is not in the config");
  return text.replace(at, from.size(), to);
}

}  // namespace normrt::testing
