#include "tests/tools/serve/serve_process.h"

#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <thread>

extern char** environ;

namespace normrt::testing {

std::unique_ptr<ServeProcess> ServeProcess::start(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {NORMRT_SERVE_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  argv_text.push_back("--port");
  argv_text.push_back("0");
  std::vector<char*> argv;
  for (std::string& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::unique_ptr<ServeProcess> process(new ServeProcess());
  const int spawned = posix_spawn(&process->pid_, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  process->stdout_fd_ = pipe_fds[0];
  REQUIRE_MESSAGE(spawned == 0, "cannot start " << argv[0]);

  // Read stdout until the "listening on" line.
  std::string out;
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)\n");
  std::smatch match;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::regex_search(out, match, listening)) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline,
                    "normrt-serve printed no 'listening on' line in 60 s; stdout: " << out);
    pollfd readable{process->stdout_fd_, POLLIN, 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(process->stdout_fd_, buffer, sizeof buffer);
    REQUIRE_MESSAGE(n > 0, "normrt-serve exited before listening; stdout: " << out);
    out.append(buffer, static_cast<size_t>(n));
  }
  process->port_ = std::stoi(match[1].str());
  return process;
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

long ServeProcess::rss_kib() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

int ServeProcess::stop(int seconds) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;  // the destructor kills it
}

}  // namespace normrt::testing
