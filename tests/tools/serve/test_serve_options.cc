// normrt-serve's command line: the thread counts. --workers 0 (and the
// default) means the CPUs this process may use; the bound on workers plus
// HTTP threads is the runtime's max_session_threads().
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/serve/serve_options.h"

namespace normrt::serve {
namespace {

Expected<ServeOptions> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "normrt-serve");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  bool help = false;
  return parse_serve_options(static_cast<int>(argv.size()), argv.data(), &help);
}

}  // namespace

TEST_SUITE("serve_options") {
  TEST_CASE("--workers 0 and the default mean the CPUs this process may use") {
    const size_t cpus = std::clamp<size_t>(available_cpus(), 1, max_session_threads() / 4);
    auto by_default = parse({"m.nrmt"});
    REQUIRE(by_default.is_ok());
    CHECK(by_default.value().service.workers == cpus);
    auto zero = parse({"m.nrmt", "--workers", "0"});
    REQUIRE(zero.is_ok());
    CHECK(zero.value().service.workers == cpus);
    auto three = parse({"m.nrmt", "--workers", "3"});
    REQUIRE(three.is_ok());
    CHECK(three.value().service.workers == 3);
  }

  TEST_CASE("the thread bound is the runtime's max_session_threads()") {
    CHECK(max_serve_threads() == max_session_threads());
    auto beyond = parse({"m.nrmt", "--workers", "20000"});
    REQUIRE_FALSE(beyond.is_ok());
    CHECK(beyond.status().message().find("--workers: expected an integer in [0, 1024]") !=
          std::string::npos);
    auto sum = parse({"m.nrmt", "--workers", "1000", "--http-threads", "100"});
    REQUIRE_FALSE(sum.is_ok());
    CHECK(sum.status().message().find("more than 1024") != std::string::npos);
  }
}

}  // namespace normrt::serve
