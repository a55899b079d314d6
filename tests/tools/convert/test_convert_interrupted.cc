// A conversion that dies or fails half-way leaves no temporary file and the
// old output as it was: killed by SIGTERM or SIGINT while its temporary file
// exists, or stopped by a failed write (a file size limit stands for a full
// disk). Each case runs in a forked child, whose exit or signal the parent
// reads; the child reports through its exit code only.
#include <dirent.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/output/output_file.h"
#include "tools/output/temp_file_cleanup.h"

namespace normrt::testing {
namespace {

std::string fresh_dir(const std::string& name) {
  const std::string dir = scratch_path(name);
  REQUIRE(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  return dir;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> found;
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  while (dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") found.push_back(name);
  }
  ::closedir(d);
  return found;
}

// Runs `child` in a forked process and returns its wait status.
template <class Child>
int in_child(Child child) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    child();
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

}  // namespace

TEST_CASE("a conversion killed while its temporary file exists removes it and dies of the signal") {
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    CAPTURE(signal_number);
    const std::string dir = fresh_dir("killed");
    const std::string output = dir + "/model.nrmt";
    write_text(output, "old contents");
    const int status = in_child([&] {
      install_temp_file_signal_cleanup();  // as normrt-convert does
      Expected<OutputTarget> target = check_output_target(output, {});
      if (!target) ::_exit(10);
      const std::vector<std::byte> bytes(1 << 16, std::byte{7});
      Expected<PendingOutput> pending =
          PendingOutput::write(target.value(), bytes.data(), bytes.size());
      if (!pending) ::_exit(11);
      if (::access(pending.value().temporary_path().c_str(), F_OK) != 0) ::_exit(12);
      ::raise(signal_number);  // a kill while the file is being written
      ::_exit(13);             // not reached: the signal's default action ends the process
    });
    REQUIRE_MESSAGE(WIFSIGNALED(status), "the child exited with code " << WEXITSTATUS(status));
    CHECK(WTERMSIG(status) == signal_number);
    CHECK(entries(dir) == std::vector<std::string>{"model.nrmt"});
    CHECK(read_text(output) == "old contents");
  }
}

TEST_CASE("signal cleanup leaves an ignored signal ignored (nohup)") {
  const int status = in_child([] {
    ::signal(SIGHUP, SIG_IGN);
    install_temp_file_signal_cleanup();
    struct sigaction action {};
    ::sigaction(SIGHUP, nullptr, &action);
    ::_exit(action.sa_handler == SIG_IGN ? 0 : 1);
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("a write that fails half-way (file size limit) keeps the old output, no temporary file") {
  const std::string dir = fresh_dir("write_failed");
  const std::string output = dir + "/model.nrmt";
  write_text(output, "old contents");
  const int status = in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);         // the write then fails with EFBIG instead of killing
    const rlimit limit = {4096, 4096};  // the LSTM's file is 8 kB
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(10);
    ConvertOptions options;
    options.config_path = rnn_fixture("lstm_layer_norm", ".json");
    options.weights_path = rnn_fixture("lstm_layer_norm", ".safetensors");
    options.output_path = output;
    auto summary = convert(options);
    if (summary.is_ok()) ::_exit(11);
    ::_exit(summary.status().message().find("cannot write") != std::string::npos ? 0 : 12);
  });
  REQUIRE(WIFEXITED(status));
  CHECK_MESSAGE(WEXITSTATUS(status) == 0, "10: no limit, 11: converted, 12: another error");
  CHECK(entries(dir) == std::vector<std::string>{"model.nrmt"});
  CHECK(read_text(output) == "old contents");
}

}  // namespace normrt::testing
