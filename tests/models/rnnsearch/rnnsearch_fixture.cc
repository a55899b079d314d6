#include "tests/models/rnnsearch/rnnsearch_fixture.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tests/support/compare.h"
#include "tests/support/scratch_dir.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/npz_file.h"

namespace normrt::test {
namespace {

const SourceTensor& tensor_of(const NpzFile& file, const std::string& name) {
  const SourceTensor* t = file.find(name);
  REQUIRE_MESSAGE(t != nullptr, file.description() << " has no '" << name << "'");
  return *t;
}

Expected64 read_f64(const NpzFile& file, const std::string& name) {
  const SourceTensor& t = tensor_of(file, name);
  REQUIRE_MESSAGE(t.dtype == "F64", name << " is " << t.dtype);
  Expected64 out;
  out.shape = t.shape;
  out.values.resize(t.size / 8);
  std::memcpy(out.values.data(), t.data, t.size);
  return out;
}

std::vector<int32_t> read_i32(const NpzFile& file, const std::string& name) {
  const SourceTensor& t = tensor_of(file, name);
  REQUIRE_MESSAGE(t.dtype == "I32", name << " is " << t.dtype);
  std::vector<int32_t> out(t.size / 4);
  std::memcpy(out.data(), t.data, t.size);
  return out;
}

SentenceExpectation::Beam read_beam(const NpzFile& file, int k, size_t i) {
  const std::string at = "beam" + std::to_string(k) + "_";
  const std::string index = "_" + std::to_string(i);
  const SourceTensor& padded = tensor_of(file, at + "ids" + index);
  const std::vector<int32_t> ids = read_i32(file, at + "ids" + index);
  const std::vector<int32_t> lengths = read_i32(file, at + "lengths" + index);
  SentenceExpectation::Beam beam;
  beam.costs = read_f64(file, at + "costs" + index).values;
  const size_t width = static_cast<size_t>(padded.shape.at(1));
  for (size_t h = 0; h < lengths.size(); ++h)
    beam.ids.emplace_back(ids.begin() + h * width, ids.begin() + h * width + lengths[h]);
  return beam;
}

}  // namespace

const std::vector<RnnSearchCase>& rnnsearch_cases() {
  static const std::vector<RnnSearchCase> cases = {
      {"rnnsearch_none", "", 0.0},
      {"rnnsearch_layer_norm", "", 0.0},
      {"rnnsearch_rms_norm_tied", "rms_norm", 0.0},
      {"rnnsearch_prms_norm", "prms_norm", 0.25},
  };
  return cases;
}

std::string rnnsearch_fixture_path(const std::string& name, const std::string& suffix) {
  return std::string(NORMRT_RNNSEARCH_FIXTURE_DIR) + "/" + name + suffix;
}

std::string rnnsearch_scratch_path(const std::string& file) {
  return scratch_dir(NORMRT_RNNSEARCH_SCRATCH_DIR, "rnnsearch-scratch") + "/" + file;
}

std::vector<SentenceExpectation> load_expectations(const std::string& name) {
  auto file = NpzFile::open(rnnsearch_fixture_path(name, ".expected.npz"));
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  const NpzFile& f = *file.value();
  std::vector<SentenceExpectation> sentences;
  for (size_t i = 0; f.find("src_ids_" + std::to_string(i)) != nullptr; ++i) {
    const std::string at = "_" + std::to_string(i);
    SentenceExpectation e;
    e.src_ids = read_i32(f, "src_ids" + at);
    e.tgt_ids = read_i32(f, "tgt_ids" + at);
    e.greedy_ids = read_i32(f, "greedy_ids" + at);
    e.annotations = read_f64(f, "annotations" + at);
    e.attention_keys = read_f64(f, "attention_keys" + at);
    e.init_state = read_f64(f, "init_state" + at);
    e.logits = read_f64(f, "logits" + at);
    e.alignment = read_f64(f, "alignment" + at);
    e.beam3 = read_beam(f, 3, i);
    e.beam5 = read_beam(f, 5, i);
    sentences.push_back(std::move(e));
  }
  REQUIRE(!sentences.empty());
  return sentences;
}

RnnSearchModels convert_and_load(const RnnSearchCase& c, DataType dtype, bool fuse,
                                 const std::string& tag) {
  ConvertOptions options;
  options.config_path = rnnsearch_fixture_path(c.name, ".json");
  options.weights_path = rnnsearch_fixture_path(c.name, ".npz");
  options.output_path = rnnsearch_scratch_path(c.name + tag + ".nrmt");
  options.dtype = dtype;
  options.norm = c.norm;
  options.p = c.p;
  options.max_sequence_length = 32;
  Expected<ConvertSummary> summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  const RnnSearchOutputs paths = rnnsearch_output_paths(options.output_path);
  ModelOptions model_options;
  model_options.fuse = fuse;
  model_options.fold_norm_affine = fuse;
  auto encoder = Model::load(paths.encoder, model_options);
  REQUIRE_MESSAGE(encoder.is_ok(), encoder.status().message());
  auto decoder = Model::load(paths.decoder, model_options);
  REQUIRE_MESSAGE(decoder.is_ok(), decoder.status().message());
  return {encoder.value(), decoder.value()};
}

Encoded encode(std::shared_ptr<const Model> encoder, const std::vector<int32_t>& src_ids) {
  auto session = Session::create(std::move(encoder));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  Session& s = *session.value();
  REQUIRE(s.set_input("src_ids", src_ids.data(), src_ids.size() * sizeof(int32_t)).is_ok());
  Status run = s.run();
  REQUIRE_MESSAGE(run.is_ok(), run.message());
  Encoded out;
  out.length = src_ids.size();
  for (auto [name, dst] :
       {std::pair<const char*, std::vector<float>*>{"annotations", &out.annotations},
        {"attention_keys", &out.attention_keys},
        {"init_state", &out.init_state}}) {
    auto ref = s.output(name);
    REQUIRE_MESSAGE(ref.is_ok(), ref.status().message());
    dst->assign(ref.value().f32(), ref.value().f32() + ref.value().elements());
  }
  return out;
}

std::unique_ptr<Session> start_decoder(std::shared_ptr<const Model> decoder,
                                       const Encoded& source) {
  auto session = Session::create(std::move(decoder));
  REQUIRE_MESSAGE(session.is_ok(), session.status().message());
  Session& s = *session.value();
  REQUIRE(
      s.set_input("annotations", source.annotations.data(), source.annotations.size() * 4).is_ok());
  REQUIRE(
      s.set_input("attention_keys", source.attention_keys.data(), source.attention_keys.size() * 4)
          .is_ok());
  Status seeded = s.set_state("state", source.init_state.data(), source.init_state.size() * 4);
  REQUIRE_MESSAGE(seeded.is_ok(), seeded.message());
  return std::move(session).value();
}

std::vector<float> decoder_step(Session& session, int32_t prev_id, std::vector<float>* alignment) {
  REQUIRE(session.set_input("prev_id", &prev_id, sizeof prev_id).is_ok());
  Status run = session.run();
  REQUIRE_MESSAGE(run.is_ok(), run.message());
  auto logits = session.output("logits");
  REQUIRE(logits.is_ok());
  if (alignment != nullptr) {
    auto a = session.output("alignment");
    REQUIRE(a.is_ok());
    alignment->assign(a.value().f32(), a.value().f32() + a.value().elements());
  }
  return std::vector<float>(logits.value().f32(), logits.value().f32() + logits.value().elements());
}

double normwise_error(const float* actual, const double* expected, size_t n) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    diff = worst_of(diff, std::fabs(actual[i] - expected[i]));
    scale = std::max(scale, std::fabs(expected[i]));
  }
  return scale == 0 ? diff : diff / scale;
}

}  // namespace normrt::test
