// The RNNSearch builder's own checks (config ranges, build options, the
// Nematus training entries it skips) and what converted models do with bad
// token ids and over-long sources at run time: errors naming the node and
// the value, never a crash.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/rnnsearch/nematus_source.h"
#include "models/rnnsearch/rnnsearch_builder.h"
#include "tests/models/rnnsearch/rnnsearch_fixture.h"
#include "tools/convert/readers/npz_file.h"

namespace normrt::test {
namespace {

bool mentions(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    if (text.find(part) == std::string::npos) return false;
  return true;
}

RnnSearchConfig small_config() {
  RnnSearchConfig c;
  c.dim_word = 16;
  c.dim = 24;
  c.n_words_src = 30;
  c.n_words = 31;
  c.norm.kind = NormKind::kLayerNorm;
  return c;
}

TEST_CASE("check_rnnsearch_config names the field and its range") {
  CHECK(check_rnnsearch_config(small_config()).is_ok());
  RnnSearchConfig c = small_config();
  c.dim = 0;
  CHECK(mentions(check_rnnsearch_config(c).message(), {"RNNSearch config", "dim = 0", "[1, "}));
  c = small_config();
  c.n_words = int64_t{1} << 40;
  CHECK(mentions(check_rnnsearch_config(c).message(), {"n_words = 1099511627776"}));
  c = small_config();
  c.tie_encoder_decoder_embeddings = true;
  CHECK(mentions(check_rnnsearch_config(c).message(),
                 {"tie_encoder_decoder_embeddings", "30", "31"}));
  c = small_config();
  c.norm.kind = NormKind::kPRmsNorm;
  CHECK(mentions(check_rnnsearch_config(c).message(), {"p = 0", "prms_norm"}));
}

TEST_CASE("build_rnnsearch refuses a bad build option and matrix dtype") {
  auto weights = NpzFile::open(rnnsearch_fixture_path("rnnsearch_layer_norm", ".npz"));
  REQUIRE(weights.is_ok());
  RnnSearchBuildOptions options;
  options.max_source_length = 0;
  auto built = build_rnnsearch(small_config(), *weights.value(), DataType::kF32, options);
  REQUIRE_FALSE(built.is_ok());
  CHECK(mentions(built.status().message(), {"max_source_length", "= 0"}));
  built = build_rnnsearch(small_config(), *weights.value(), DataType::kI32);
  REQUIRE_FALSE(built.is_ok());
  CHECK(mentions(built.status().message(), {"i32"}));
  built = build_rnnsearch(small_config(), *weights.value(), DataType::kF32);
  CHECK_MESSAGE(built.is_ok(), built.status().message());
}

TEST_CASE("Nematus' training entries are hidden, parameters are not") {
  for (const char* name : {"history_errs", "uidx", "zipped_params", "adam_t_prev",
                           "adam_decoder_U_mean", "rmsprop_x", "adadelta_y", "sgd_z"})
    CHECK_MESSAGE(is_nematus_training_entry(name), name);
  for (const char* name : {"Wemb", "decoder_U_att", "ff_logit_b", "adamant", "uidx2"})
    CHECK_MESSAGE(!is_nematus_training_entry(name), name);
  auto file = NpzFile::open(rnnsearch_fixture_path("rnnsearch_none", ".npz"));
  REQUIRE(file.is_ok());
  const NematusParameters parameters(*file.value());
  const std::vector<std::string> names = parameters.names();
  CHECK(file.value()->names().size() == names.size() + 4);  // the fixture saves four
  CHECK(parameters.find("uidx") == nullptr);
  CHECK(file.value()->find("uidx") != nullptr);
  CHECK(parameters.find("Wemb") != nullptr);
}

TEST_CASE("converted models report bad ids and over-long sources by node and value") {
  const RnnSearchModels m = convert_and_load(rnnsearch_cases()[1], DataType::kF32, true, ".e");
  {  // a source id outside [0, n_words_src)
    auto session = Session::create(m.encoder);
    REQUIRE(session.is_ok());
    const std::vector<int32_t> src = {3, 30, 0};
    REQUIRE(session.value()->set_input("src_ids", src.data(), src.size() * 4).is_ok());
    const Status s = session.value()->run();
    CHECK(mentions(s.message(), {"src_embedding", "ids[1] = 30", "out of range"}));
  }
  {  // longer than --max-seq (32 in the fixture conversion)
    auto session = Session::create(m.encoder);
    REQUIRE(session.is_ok());
    const std::vector<int32_t> src(33, 1);
    CHECK_FALSE(session.value()->set_input("src_ids", src.data(), src.size() * 4).is_ok());
  }
  const Encoded enc = encode(m.encoder, {4, 5, 0});
  for (int32_t bad : {-2, 31}) {  // -1 is the first step's zero embedding; 31 = n_words
    auto session = start_decoder(m.decoder, enc);
    REQUIRE(session->set_input("prev_id", &bad, 4).is_ok());
    const Status s = session->run();
    CHECK(mentions(s.message(), {"tgt_embedding", "ids[0] = ", "out of range"}));
    CHECK(s.message().find(std::to_string(bad)) != std::string::npos);
  }
}

}  // namespace
}  // namespace normrt::test
