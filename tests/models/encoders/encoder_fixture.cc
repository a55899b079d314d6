#include "encoder_fixture.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "formats/json/json_config.h"
#include "runtime/exec/compiled_model.h"
#include "tests/support/hex.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::test {

Expected<EncoderFixture> read_encoder_fixture(const std::string& name) {
  const std::string root = NORMRT_ENCODER_FIXTURE_DIR;
  const std::string path = root + "/" + name + ".expected.txt";
  std::ifstream in(path);
  if (!in) return Status::error(path + ": cannot open");
  EncoderFixture fixture;
  fixture.dir = root + "/" + name;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string kind, label;
    fields >> kind >> label;
    const std::string where = path + ":" + std::to_string(number);
    if (kind == "case") {
      EncoderCase c;
      c.label = label;
      std::string first, second;
      size_t n = 0;
      fields >> first >> second >> n;
      try {
        c.first = decode_hex_or_none(first);
        c.second = decode_hex_or_none(second);
      } catch (const std::invalid_argument& bad) {
        return Status::error(where + ": " + bad.what());
      }
      c.ids.resize(n);
      for (int32_t& id : c.ids) fields >> id;
      if (!fields) return Status::error(where + ": bad case line");
      fixture.cases.push_back(std::move(c));
    } else if (kind == "types") {
      if (fixture.cases.empty() || fixture.cases.back().label != label)
        return Status::error(where + ": types of '" + label + "' must follow its case");
      size_t n = 0;
      fields >> n;
      std::vector<int32_t>& types = fixture.cases.back().types;
      types.resize(n);
      for (int32_t& type : types) fields >> type;
      if (!fields) return Status::error(where + ": bad types line");
    } else if (kind == "output") {
      std::string output;
      ExpectedValues v;
      fields >> output >> v.rows >> v.cols;
      v.values.resize(v.rows * v.cols);
      for (double& value : v.values) fields >> value;
      if (!fields) return Status::error(where + ": bad output line");
      fixture.outputs[label + "/" + output] = std::move(v);
    } else if (kind == "buckets") {  // buckets <first relative position> <bucket...>
      fixture.buckets_first = std::stoll(label);
      for (int64_t bucket = 0; fields >> bucket;) fixture.buckets.push_back(bucket);
      if (fixture.buckets.empty()) return Status::error(where + ": bad buckets line");
    } else {
      return Status::error(where + ": unknown line kind '" + kind + "'");
    }
  }
  return fixture;
}

Expected<std::shared_ptr<const Model>> build_fixture_model(const std::string& dir,
                                                           const ModelBuildOptions& options,
                                                           bool fuse, std::string* architecture) {
  NORMRT_ASSIGN_OR_RETURN(JsonConfig config, JsonConfig::load(dir + "/config.json"));
  NORMRT_ASSIGN_OR_RETURN(const Architecture* entry, detect_architecture(config));
  if (architecture != nullptr) *architecture = entry->name;
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> weights,
                          SafetensorsFile::open(dir + "/model.safetensors"));
  NORMRT_ASSIGN_OR_RETURN(BuiltModel built, build_model(*entry, config, *weights, options));
  ModelOptions model_options;
  model_options.fuse = fuse;
  return compile_model(std::move(built.graphs.at(0).graph), model_options);
}

Expected<std::vector<float>> run_ids(Session& session, const std::vector<int32_t>& ids,
                                     const std::string& output, const std::vector<int32_t>& types) {
  session.reset();
  NORMRT_RETURN_IF_ERROR(session.set_input("input_ids", ids.data(), ids.size() * sizeof(int32_t)));
  if (!types.empty()) {
    NORMRT_RETURN_IF_ERROR(
        session.set_input("token_type_ids", types.data(), types.size() * sizeof(int32_t)));
  }
  NORMRT_RETURN_IF_ERROR(session.run());
  NORMRT_ASSIGN_OR_RETURN(auto out, session.output(output));
  return std::vector<float>(out.f32(), out.f32() + out.elements());
}

}  // namespace normrt::test
