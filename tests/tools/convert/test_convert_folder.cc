// normrt-convert --model DIR on sentence-transformers folders built here
// around the tiny BERT fixture: the pooling (CLS, mean, max), the Normalize
// module and max_seq_length come from the folder's files, each pooled row
// equals the pooling formula (long double) applied to the same model's
// last_hidden_state; the stored tokenizer gives the folder tokenizer's ids
// and truncates at the model's length; every unsupported module or mode is
// refused, naming the file.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_serialize.h"

namespace normrt::testing {
namespace {

constexpr size_t kWidth = 32;

std::string tiny_vocab() {
  std::string words =
      "[PAD] [UNK] [CLS] [SEP] [MASK] the cat sat on mat dog ran a b c d e f g h i j k l m n o p "
      "q r s t u v w x y z ##s ##ed ##ing ; ! , . ? - zebra red blue green one two three four "
      "five six seven eight nine ten big small fast";
  for (char& c : words)
    if (c == ' ') c = '\n';
  return words + "\n";
}

struct Folder {
  std::string tokenizer_config = R"({"do_lower_case": true})";
  std::string modules = R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
  ])";
  std::string pooling = "mean";  // the one mode switched on ("" : none)
  std::string pooling_extra;     // more keys of 1_Pooling/config.json
  std::string st_config = R"({"max_seq_length": 12, "do_lower_case": false})";
  bool safetensors = true;
};

// A fresh folder `name` with the tiny BERT's config.json and weights.
std::string make_folder(const std::string& name, const Folder& f) {
  const std::string dir = scratch_path(name);
  ::mkdir(dir.c_str(), 0755);
  ::mkdir((dir + "/1_Pooling").c_str(), 0755);
  write_text(dir + "/config.json", tiny_bert_config_json());
  const std::string weights = read_text(bert_fixture("tiny_bert_gelu.safetensors"));
  write_text(dir + (f.safetensors ? "/model.safetensors" : "/pytorch_model.bin"), weights);
  write_text(dir + "/vocab.txt", tiny_vocab());
  write_text(dir + "/tokenizer_config.json", f.tokenizer_config);
  if (!f.modules.empty()) write_text(dir + "/modules.json", f.modules);
  std::string pooling = R"({"word_embedding_dimension": 32)";
  for (const char* mode : {"cls_token", "mean_tokens", "max_tokens"}) {
    if (f.pooling_extra.find("\"pooling_mode\"") != std::string::npos) break;
    const bool on = f.pooling == std::string(mode).substr(0, std::string(mode).find('_'));
    pooling += std::string(", \"pooling_mode_") + mode + "\": " + (on ? "true" : "false");
  }
  write_text(dir + "/1_Pooling/config.json", pooling + f.pooling_extra + "}");
  if (!f.st_config.empty()) write_text(dir + "/sentence_bert_config.json", f.st_config);
  return dir;
}

Expected<ConvertSummary> convert_folder(const std::string& dir, const std::string& output,
                                        const std::string& pooling = "") {
  ConvertOptions options;
  options.model_dir = dir;
  options.output_path = output;
  options.pooling = pooling;
  return convert(options);
}

const std::vector<int32_t> kIds = {2, 5, 6, 7, 8, 5, 9, 46, 3};  // [CLS] the cat ... [SEP]

// The tiny BERT's last hidden state for kIds, [S, kWidth].
std::vector<float> hidden_state() {
  const std::string dir = make_folder("hidden", Folder{});
  const std::string path = scratch_path("hidden.nrmt");
  auto summary = convert_folder(dir, path, "none");
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  return run_model_file(path, "input_ids", kIds.data(), kIds.size() * 4, "last_hidden_state");
}

// CLS, mean or max of `h` [S, kWidth] in long double, L2-normalized or not.
std::vector<long double> pooled_reference(const std::vector<float>& h, const std::string& mode,
                                          bool normalize) {
  const size_t rows = h.size() / kWidth;
  std::vector<long double> out(kWidth);
  for (size_t d = 0; d < kWidth; ++d) {
    long double sum = 0, max = h[d];
    for (size_t s = 0; s < rows; ++s) {
      sum += h[s * kWidth + d];
      max = std::max<long double>(max, h[s * kWidth + d]);
    }
    out[d] = mode == "cls" ? h[d] : mode == "max" ? max : sum / rows;
  }
  if (normalize) {
    long double norm = 0;
    for (long double v : out) norm += v * v;
    for (long double& v : out) v /= std::sqrt(norm);
  }
  return out;
}

}  // namespace

TEST_CASE("--model takes pooling, normalization and length from a sentence-transformers folder") {
  const std::vector<float> h = hidden_state();
  REQUIRE(h.size() == kIds.size() * kWidth);
  for (const std::string mode : {"cls", "mean", "max"}) {
    for (const bool normalize : {true, false}) {
      CAPTURE(mode);
      CAPTURE(normalize);
      Folder f;
      f.pooling = mode;
      if (!normalize)  // modules.json without its Normalize module
        f.modules = f.modules.substr(0, f.modules.find(",\n    {\"idx\": 2")) + "]";
      const std::string dir = make_folder("st_" + mode + (normalize ? "_l2" : ""), f);
      const std::string path = scratch_path("st_" + mode + ".nrmt");
      auto summary = convert_folder(dir, path);
      REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
      CHECK(summary.value().folder_settings.front() ==
            "pooling " + mode + " (1_Pooling/config.json)");
      CHECK(summary.value().folder_settings.back() ==
            "max sequence 12 (sentence_bert_config.json)");
      CHECK(summary.value().folder_settings.size() == (normalize ? 3u : 2u));
      CHECK(model_metadata(path, "pooling") == mode + (normalize ? "_l2" : ""));
      const auto got = run_model_file(path, "input_ids", kIds.data(), kIds.size() * 4, "embedding");
      const auto want = pooled_reference(h, mode, normalize);
      REQUIRE(got.size() == want.size());
      for (size_t d = 0; d < kWidth; ++d) {
        const long double error = std::fabs(got[d] - want[d]);
        if (!(error <= 1e-6L + 1e-5L * std::fabs(want[d]))) {
          FAIL_CHECK("index " << d << ": got " << got[d] << ", want " << (double)want[d]
                              << ", |diff| > 1e-6 + 1e-5·|want|");
          break;
        }
      }
    }
  }
}

TEST_CASE("the stored tokenizer is the folder's, truncating at the model's length") {
  const std::string dir = make_folder("st_tokenizer", Folder{});
  const std::string path = scratch_path("st_tokenizer.nrmt");
  auto summary = convert_folder(dir, path);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary.value().tokenizer.find("WordPiece, 64 ids") != std::string::npos);
  auto model = Model::load(path);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  CHECK(model.value()->max_sequence_length() == 12);
  auto stored = text::deserialize(model.value()->tokenizer_bytes());
  REQUIRE_MESSAGE(stored.is_ok(), stored.status().message());
  CHECK(stored.value().truncation().max_length == 12);
  auto folder = text::load_tokenizer_folder(dir, 1000);
  REQUIRE_MESSAGE(folder.is_ok(), folder.status().message());
  for (const char* text : {"The cat sat on the mat.", "", "zebra ZEBRA zebras!", "x y z ? -"}) {
    CAPTURE(text);
    auto got = stored.value().encode(text);
    auto want = folder.value().tokenizer.encode(text);
    REQUIRE(got.is_ok());
    REQUIRE(want.is_ok());
    CHECK(got.value().ids == want.value().ids);
  }
  const std::string long_text = "the cat sat on the mat and the dog ran fast seven times";
  auto cut = stored.value().encode(long_text);
  auto whole = folder.value().tokenizer.encode(long_text);
  REQUIRE(cut.is_ok());
  REQUIRE(whole.is_ok());
  REQUIRE(whole.value().ids.size() > 12);
  std::vector<int32_t> want(whole.value().ids.begin(), whole.value().ids.begin() + 11);
  want.push_back(whole.value().ids.back());  // [CLS] 10 pieces [SEP]
  CHECK(cut.value().ids == want);

  // Without sentence_bert_config.json the model keeps the config's 40
  // positions and the tokenizer (512 from the folder) is lowered to 40.
  Folder plain;
  plain.st_config = "";
  const std::string plain_dir = make_folder("st_no_length", plain);
  auto lowered = convert_folder(plain_dir, path);
  REQUIRE_MESSAGE(lowered.is_ok(), lowered.status().message());
  CHECK(lowered.value().tokenizer.find("truncating at the model's 40 ids") != std::string::npos);
}

TEST_CASE("a plain converted file stores no tokenizer; --tokenizer stores one") {
  const std::string dir = make_folder("plain_tokenizer", Folder{});
  ConvertOptions options;
  options.config_path = dir + "/config.json";
  options.weights_path = dir + "/model.safetensors";
  options.output_path = scratch_path("plain.nrmt");
  REQUIRE(convert(options).is_ok());
  auto model = Model::load(options.output_path);
  REQUIRE(model.is_ok());
  CHECK(model.value()->tokenizer_bytes().empty());
  options.tokenizer_dir = dir;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  auto with = Model::load(options.output_path);
  REQUIRE(with.is_ok());
  CHECK(text::deserialize(with.value()->tokenizer_bytes()).is_ok());
  CHECK(model_metadata(options.output_path, "tokenizer") == "");  // bytes are not text
}

TEST_CASE("--tokenizer on a model without a token-id input is an error; nothing is written") {
  const std::string dir = make_folder("tokenizer_for_gru", Folder{});
  ConvertOptions options;  // gru_layer_norm: vocab_size 0, its input x is f32
  options.config_path = rnn_fixture("gru_layer_norm", ".json");
  options.weights_path = rnn_fixture("gru_layer_norm", ".safetensors");
  options.output_path = scratch_path("gru_tokenizer.nrmt");
  ::unlink(options.output_path.c_str());
  REQUIRE(convert(options).is_ok());  // without it, the fixture converts
  ::unlink(options.output_path.c_str());
  options.tokenizer_dir = dir;
  auto refused = convert(options);
  REQUIRE_FALSE(refused.is_ok());
  CHECK_MESSAGE(refused.status().message() ==
                    "--tokenizer " + dir +
                        ": this model takes no token ids (no i32 input), so a tokenizer stored in "
                        "it would never be used",
                refused.status().message());
  CHECK(::access(options.output_path.c_str(), F_OK) != 0);
}

TEST_CASE("--model refuses what the folder says normrt cannot do, naming the file") {
  const auto refused = [](const std::string& name, const Folder& f,
                          std::initializer_list<std::string> fragments) {
    const std::string dir = make_folder(name, f);
    const std::string path = scratch_path(name + ".nrmt");
    auto summary = convert_folder(dir, path);
    REQUIRE_FALSE(summary.is_ok());
    for (const std::string& fragment : fragments)
      CHECK_MESSAGE(summary.status().message().find(fragment) != std::string::npos,
                    summary.status().message() << "\n  lacks: " << fragment);
    CHECK_FALSE(file_exists(path));
  };
  Folder dense;
  dense.modules = dense.modules.substr(0, dense.modules.rfind(']')) +
                  R"(, {"idx": 3, "name": "3", "path": "3_Dense",
                       "type": "sentence_transformers.models.Dense"}])";
  refused("st_dense", dense,
          {"modules.json: module 3", "'sentence_transformers.models.Dense' is not supported"});
  Folder two_modes;
  two_modes.pooling_extra = R"(, "pooling_mode_max_tokens": true)";
  refused("st_two_modes", two_modes, {"1_Pooling/config.json", "both mean and max"});
  Folder sqrt_len;
  sqrt_len.pooling_extra = R"(, "pooling_mode_mean_sqrt_len_tokens": true)";
  refused("st_sqrt_len", sqrt_len, {"pooling_mode_mean_sqrt_len_tokens' is true"});
  Folder no_mode;
  no_mode.pooling = "";
  refused("st_no_mode", no_mode, {"1_Pooling/config.json", "no pooling mode is on"});
  Folder lower;
  lower.st_config = R"({"max_seq_length": 12, "do_lower_case": true})";
  refused("st_lower", lower, {"sentence_bert_config.json", "do_lower_case is true"});
  Folder pickle;
  pickle.safetensors = false;
  refused("st_pickle", pickle, {"pytorch_model.bin", "safetensors"});
  Folder not_a_list;
  not_a_list.modules = R"({"0": "Transformer"})";
  refused("st_not_a_list", not_a_list, {"modules.json: expected a list of modules"});

  ConvertOptions both;
  both.model_dir = make_folder("st_both", Folder{});
  both.config_path = both.model_dir + "/config.json";
  both.output_path = scratch_path("st_both.nrmt");
  auto summary = convert(both);
  REQUIRE_FALSE(summary.is_ok());
  CHECK(summary.status().message().find("drop --config and --weights") != std::string::npos);
  ConvertOptions missing;
  missing.model_dir = scratch_path("no_such_folder");
  missing.output_path = scratch_path("none.nrmt");
  auto absent = convert(missing);
  REQUIRE_FALSE(absent.is_ok());
  CHECK(absent.status().message().find("not a directory") != std::string::npos);
}

TEST_CASE("sentence-transformers 6 folders: pooling_mode by name, the length in tokenizer_config") {
  Folder f;
  f.pooling_extra = R"(, "pooling_mode": "max", "include_prompt": true)";
  f.st_config = R"({"transformer_task": "feature-extraction"})";
  f.tokenizer_config = R"({"do_lower_case": true, "model_max_length": 20})";
  const std::string dir = make_folder("st6", f);
  const std::string path = scratch_path("st6.nrmt");
  auto summary = convert_folder(dir, path);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary.value().folder_settings ==
        std::vector<std::string>{"pooling max (1_Pooling/config.json)",
                                 "L2 normalization (modules.json: Normalize)",
                                 "max sequence 20 (tokenizer_config.json: model_max_length)"});
  CHECK(model_metadata(path, "pooling") == "max_l2");
  auto model = Model::load(path);
  REQUIRE(model.is_ok());
  CHECK(model.value()->max_sequence_length() == 20);

  Folder listed;
  listed.pooling_extra = R"(, "pooling_mode": ["mean", "max"])";
  const std::string listed_dir = make_folder("st6_list", listed);
  auto refused = convert_folder(listed_dir, scratch_path("st6_list.nrmt"));
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().find("is not one name") != std::string::npos);
  Folder weighted;
  weighted.pooling_extra = R"(, "pooling_mode": "weightedmean")";
  auto weighted_refused =
      convert_folder(make_folder("st6_weighted", weighted), scratch_path("st6_w.nrmt"));
  REQUIRE_FALSE(weighted_refused.is_ok());
  CHECK(weighted_refused.status().message().find("pooling_mode 'weightedmean' is not supported") !=
        std::string::npos);
}

TEST_CASE("a pooling flag wins over the folder's") {
  const std::string dir = make_folder("st_flag", Folder{});
  const std::string path = scratch_path("st_flag.nrmt");
  ConvertOptions options;
  options.model_dir = dir;
  options.output_path = path;
  options.pooling = "cls";
  options.normalize = false;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(model_metadata(path, "pooling") == "cls");
  CHECK(summary.value().folder_settings ==
        std::vector<std::string>{"max sequence 12 (sentence_bert_config.json)"});
}

TEST_CASE("--no-normalize without a pooling head is an error, and nothing is written") {
  Folder no_pooling;  // modules.json with the Transformer only: no Pooling, no Normalize
  no_pooling.modules = R"([
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}
  ])";
  const std::string dir = make_folder("st_no_pooling", no_pooling);
  const std::string path = scratch_path("st_no_pooling.nrmt");
  ::unlink(path.c_str());
  ConvertOptions from_folder;
  from_folder.model_dir = dir;
  from_folder.output_path = path;
  from_folder.normalize = false;
  ConvertOptions from_config;  // --config/--weights: no folder, no --pooling
  from_config.config_path = dir + "/config.json";
  from_config.weights_path = dir + "/model.safetensors";
  from_config.output_path = path;
  from_config.normalize = false;
  for (const ConvertOptions& options : {from_folder, from_config}) {
    auto refused = convert(options);
    REQUIRE_FALSE(refused.is_ok());
    CHECK_MESSAGE(refused.status().message().find("--no-normalize applies to a pooling head, and "
                                                  "this model has none") != std::string::npos,
                  refused.status().message());
    CHECK(::access(path.c_str(), F_OK) != 0);
  }
  // The same folder without --no-normalize converts (no pooling: nothing to normalize).
  from_folder.normalize.reset();
  auto plain = convert(from_folder);
  REQUIRE_MESSAGE(plain.is_ok(), plain.status().message());
  CHECK(model_metadata(path, "pooling") == "none");
}

TEST_CASE("--no-normalize over a folder with Normalize: not normalized, and not said to be") {
  const std::string dir = make_folder("st_no_l2", Folder{});
  const std::string path = scratch_path("st_no_l2.nrmt");
  ConvertOptions options;
  options.model_dir = dir;
  options.output_path = path;
  options.normalize = false;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(model_metadata(path, "pooling") == "mean");
  CHECK(summary.value().folder_settings ==
        std::vector<std::string>{"pooling mean (1_Pooling/config.json)",
                                 "max sequence 12 (sentence_bert_config.json)"});
}

}  // namespace normrt::testing
