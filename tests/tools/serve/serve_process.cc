#include "tests/tools/serve/serve_process.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/tools/serve/serve_test_support.h"

extern char** environ;

namespace normrt::testing {
namespace {

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

long status_field_kib(pid_t pid, const char* field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::string(field).size()));
  }
  return -1;
}

std::string next_scratch_name(const std::string& stem) {
  static std::atomic<int> counter{0};
  return scratch_path(stem + "-" + std::to_string(counter++) + ".txt");
}

// Spawns the binary with `argv_text`, stdout to `stdout_fd` (or a file),
// stderr to `stderr_path`.
pid_t spawn_serve(std::vector<std::string> argv_text, int stdout_fd, const std::string& stdout_path,
                  const std::string& stderr_path) {
  std::vector<char*> argv;
  for (std::string& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE_MESSAGE(spawned == 0, "cannot start " << argv[0]);
  return pid;
}

int decode_wait_status(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::unique_ptr<ServeProcess> ServeProcess::start(const std::vector<std::string>& args) {
  std::vector<std::string> argv_text = {NORMRT_SERVE_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  argv_text.push_back("--port");
  argv_text.push_back("0");

  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  std::unique_ptr<ServeProcess> process(new ServeProcess());
  process->stderr_path_ = next_scratch_name("serve-stderr");
  process->pid_ = spawn_serve(argv_text, pipe_fds[1], "", process->stderr_path_);
  ::close(pipe_fds[1]);
  process->stdout_fd_ = pipe_fds[0];

  // Read stdout until the "listening on" line.
  std::string out;
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)\n");
  std::smatch match;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::regex_search(out, match, listening)) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline,
                    "normrt-serve printed no 'listening on' line in 60 s; stdout: "
                        << out << "; stderr: " << process->stderr_text());
    pollfd readable{process->stdout_fd_, POLLIN, 0};
    if (::poll(&readable, 1, 100) <= 0) continue;
    char buffer[256];
    const ssize_t n = ::read(process->stdout_fd_, buffer, sizeof buffer);
    REQUIRE_MESSAGE(n > 0, "normrt-serve exited before listening; stdout: "
                               << out << "; stderr: " << process->stderr_text());
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

long ServeProcess::rss_kib() const { return status_field_kib(pid_, "VmRSS:"); }

long ServeProcess::peak_rss_kib() const { return status_field_kib(pid_, "VmHWM:"); }

void ServeProcess::signal(int signal_number) const {
  if (pid_ > 0) ::kill(pid_, signal_number);
}

std::string ServeProcess::stderr_text() const { return read_whole(stderr_path_); }

bool ServeProcess::wait_for_stderr(const std::string& needle, double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (stderr_text().find(needle) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return stderr_text().find(needle) != std::string::npos;
}

bool ServeProcess::alive() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = decode_wait_status(status);
    pid_ = -1;
    return false;
  }
  return true;
}

int ServeProcess::stop(int seconds) {
  if (pid_ <= 0) return exit_code_;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!alive()) return exit_code_;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;  // the destructor kills it
}

ServeExit run_serve_to_exit(const std::vector<std::string>& args, double seconds) {
  std::vector<std::string> argv_text = {NORMRT_SERVE_BINARY};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  const std::string out_path = next_scratch_name("run-stdout");
  const std::string err_path = next_scratch_name("run-stderr");
  const pid_t pid = spawn_serve(argv_text, -1, out_path, err_path);
  ServeExit result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (true) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      result.code = decode_wait_status(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.out = read_whole(out_path);
  result.err = read_whole(err_path);
  return result;
}

}  // namespace normrt::testing
