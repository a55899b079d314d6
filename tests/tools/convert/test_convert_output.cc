// Where normrt-convert writes (docs/convert.md, "Output"): special files and
// the inputs themselves are refused, a symlink is written through to its
// target and stays a link, an existing output keeps its permission bits, a
// read-only one is refused, and on every error the old output keeps its
// contents and no temporary file is left beside it. Every check runs without
// root: a FIFO stands for a device node, a chmod a-w file for a protected one.
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"

namespace normrt::testing {
namespace {

// An empty folder of its own under the scratch folder, so that leftovers
// (temporary files) can be counted.
std::string fresh_dir(const std::string& name) {
  const std::string dir = scratch_path(name);
  REQUIRE(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  return dir;
}

// Names in `dir` that look like the converter's temporary files.
std::vector<std::string> temporary_files(const std::string& dir) {
  std::vector<std::string> found;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* entry = ::readdir(d))
    if (std::string(entry->d_name).find(".tmp-") != std::string::npos)
      found.push_back(entry->d_name);
  ::closedir(d);
  return found;
}

ConvertOptions lstm_options(const std::string& output) {
  ConvertOptions options;
  options.config_path = rnn_fixture("lstm_layer_norm", ".json");
  options.weights_path = rnn_fixture("lstm_layer_norm", ".safetensors");
  options.output_path = output;
  return options;
}

// Converts and expects an error naming every string of `wanted`.
void expect_refused(const ConvertOptions& options, const std::vector<std::string>& wanted) {
  auto summary = convert(options);
  REQUIRE_MESSAGE(!summary.is_ok(), options.output_path << " was accepted");
  const std::string message = summary.status().message();
  for (const std::string& w : wanted)
    CHECK_MESSAGE(message.find(w) != std::string::npos,
                  "expected '" << w << "' in the error: " << message);
}

struct stat file_status(const std::string& path) {
  struct stat info {};
  REQUIRE_MESSAGE(::lstat(path.c_str(), &info) == 0, path);
  return info;
}

bool loads(const std::string& path) { return Model::load(path).is_ok(); }

}  // namespace

TEST_CASE("an output that is a FIFO or a directory is refused and left as it was") {
  const std::string dir = fresh_dir("out_special");
  const std::string fifo = dir + "/pipe.nrmt";  // what /dev/null is to root: not a regular file
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  expect_refused(lstm_options(fifo), {"pipe.nrmt", "not a regular file", "FIFO"});
  CHECK(S_ISFIFO(file_status(fifo).st_mode));

  const std::string folder = dir + "/folder.nrmt";
  REQUIRE(::mkdir(folder.c_str(), 0755) == 0);
  expect_refused(lstm_options(folder), {"folder.nrmt", "is a directory"});
  CHECK(S_ISDIR(file_status(folder).st_mode));

  // A link to a FIFO is judged by what it points to.
  const std::string link = dir + "/link_to_pipe.nrmt";
  REQUIRE(::symlink("pipe.nrmt", link.c_str()) == 0);
  expect_refused(lstm_options(link), {"not a regular file", "FIFO"});
  CHECK(S_ISFIFO(file_status(fifo).st_mode));
  CHECK(temporary_files(dir).empty());
}

TEST_CASE("an output that is one of the inputs is refused, however it is named") {
  const std::string dir = fresh_dir("out_inputs");
  ConvertOptions options = lstm_options("");
  options.config_path = dir + "/config.json";
  options.weights_path = dir + "/weights.safetensors";
  const std::string config = read_text(rnn_fixture("lstm_layer_norm", ".json"));
  const std::string weights = read_text(rnn_fixture("lstm_layer_norm", ".safetensors"));
  write_text(options.config_path, config);
  write_text(options.weights_path, weights);

  options.output_path = options.config_path;
  expect_refused(options, {"config.json", "is the --config input"});
  options.output_path = options.weights_path;
  expect_refused(options, {"is the --weights input"});
  // Another name for the same file: compared by device and inode, not by name.
  options.output_path = dir + "/./weights.safetensors";
  expect_refused(options, {"is the --weights input"});
  const std::string hard_link = dir + "/hard_link.nrmt";
  REQUIRE(::link(options.weights_path.c_str(), hard_link.c_str()) == 0);
  options.output_path = hard_link;
  expect_refused(options, {"is the --weights input"});
  const std::string soft_link = dir + "/soft_link.nrmt";
  REQUIRE(::symlink("config.json", soft_link.c_str()) == 0);
  options.output_path = soft_link;
  expect_refused(options, {"is the --config input"});

  CHECK(read_text(options.config_path) == config);
  CHECK(read_text(options.weights_path) == weights);
  CHECK(temporary_files(dir).empty());
}

TEST_CASE("a symlink output is written through to its target, and stays a link") {
  const std::string dir = fresh_dir("out_symlink");
  write_text(dir + "/v2.nrmt", "the old v2");
  const std::string link = dir + "/current.nrmt";
  REQUIRE(::symlink("v2.nrmt", link.c_str()) == 0);
  auto summary = convert(lstm_options(link));
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(S_ISLNK(file_status(link).st_mode));
  char target[256] = {};
  REQUIRE(::readlink(link.c_str(), target, sizeof target - 1) > 0);
  CHECK(std::string(target) == "v2.nrmt");
  CHECK(S_ISREG(file_status(dir + "/v2.nrmt").st_mode));
  CHECK(loads(dir + "/v2.nrmt"));

  // A chain of links into another folder, by a relative path.
  const std::string sub = dir + "/models";
  REQUIRE(::mkdir(sub.c_str(), 0755) == 0);
  write_text(sub + "/real.nrmt", "old");
  REQUIRE(::symlink("models/real.nrmt", (dir + "/middle.nrmt").c_str()) == 0);
  REQUIRE(::symlink("middle.nrmt", (dir + "/outer.nrmt").c_str()) == 0);
  summary = convert(lstm_options(dir + "/outer.nrmt"));
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(S_ISLNK(file_status(dir + "/outer.nrmt").st_mode));
  CHECK(S_ISLNK(file_status(dir + "/middle.nrmt").st_mode));
  CHECK(loads(sub + "/real.nrmt"));
  CHECK(temporary_files(dir).empty());
  CHECK(temporary_files(sub).empty());

  // A link to nothing is refused (as cp refuses to write through one).
  const std::string dangling = dir + "/dangling.nrmt";
  REQUIRE(::symlink("absent.nrmt", dangling.c_str()) == 0);
  expect_refused(lstm_options(dangling), {"dangling.nrmt", "absent.nrmt", "does not exist"});
  CHECK(S_ISLNK(file_status(dangling).st_mode));
  CHECK(!file_exists(dir + "/absent.nrmt"));
}

TEST_CASE("an existing output keeps its permission bits; a read-only one is refused") {
  const std::string dir = fresh_dir("out_modes");
  const std::string private_file = dir + "/private.nrmt";
  write_text(private_file, "old");
  REQUIRE(::chmod(private_file.c_str(), 0640) == 0);
  auto summary = convert(lstm_options(private_file));
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK((file_status(private_file).st_mode & 07777) == 0640);
  CHECK(loads(private_file));

  // A file nobody may write (chmod a-w) is refused, for root too: the check
  // reads the permission bits, it does not try to write.
  const std::string read_only = dir + "/read_only.nrmt";
  write_text(read_only, "protected");
  REQUIRE(::chmod(read_only.c_str(), 0444) == 0);
  expect_refused(lstm_options(read_only), {"read_only.nrmt", "read-only", "0444"});
  CHECK(read_text(read_only) == "protected");
  CHECK((file_status(read_only).st_mode & 07777) == 0444);

  // A new file gets 0666 less the umask, as any program's new file.
  const mode_t old_umask = ::umask(027);
  summary = convert(lstm_options(dir + "/new.nrmt"));
  ::umask(old_umask);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK((file_status(dir + "/new.nrmt").st_mode & 07777) == 0640);
  CHECK(temporary_files(dir).empty());
}

TEST_CASE("every error keeps an existing output's contents and leaves no temporary file") {
  const std::string dir = fresh_dir("out_errors");
  const std::string output = dir + "/model.nrmt";
  write_text(output, "old contents");
  struct Case {
    const char* what;
    ConvertOptions options;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, auto change) {
    ConvertOptions options = lstm_options(output);
    change(options);
    cases.push_back({what, options});
  };
  add("missing config", [&](ConvertOptions& o) { o.config_path = dir + "/absent.json"; });
  add("bad config", [&](ConvertOptions& o) {
    o.config_path = dir + "/bad.json";
    write_text(o.config_path, R"({"architecture": "lstm", "input_size": 5})");
  });
  add("missing weights", [&](ConvertOptions& o) { o.weights_path = dir + "/absent.safetensors"; });
  add("weights of another model",
      [&](ConvertOptions& o) { o.weights_path = rnn_fixture("gru_layer_norm", ".safetensors"); });
  add("bad layout", [&](ConvertOptions& o) { o.layout = "panels8"; });
  add("bad option", [&](ConvertOptions& o) { o.pooling = "mean"; });
  add("bad dtype", [&](ConvertOptions& o) { o.dtype = DataType::kI32; });
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK_FALSE(convert(c.options).is_ok());
    CHECK(read_text(output) == "old contents");
    CHECK(temporary_files(dir).empty());
  }
}

}  // namespace normrt::testing
