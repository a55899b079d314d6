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

  TEST_CASE("--batch-wait-ms and --max-batch-texts: merging off by default, on with a wait") {
    auto by_default = parse({"m.nrmt"});
    REQUIRE(by_default.is_ok());
    CHECK_FALSE(by_default.value().service.merge.wait.has_value());
    CHECK(by_default.value().service.merge.max_texts == 0);
    auto on = parse({"m.nrmt", "--batch-wait-ms", "5"});
    REQUIRE(on.is_ok());
    REQUIRE(on.value().service.merge.wait.has_value());
    CHECK(on.value().service.merge.wait->count() == 5);
    CHECK(on.value().service.merge.max_texts == 0);  // --run-batch's 32
    auto zero = parse({"m.nrmt", "--batch-wait-ms", "0", "--max-batch-texts", "16"});
    REQUIRE(zero.is_ok());
    CHECK(zero.value().service.merge.wait->count() == 0);
    CHECK(zero.value().service.merge.max_texts == 16);
    auto at_run_batch =
        parse({"m.nrmt", "--run-batch", "8", "--batch-wait-ms", "2", "--max-batch-texts", "8"});
    REQUIRE(at_run_batch.is_ok());
    CHECK(at_run_batch.value().service.merge.max_texts == 8);
  }

  TEST_CASE("--batch-wait-ms and --max-batch-texts: each refusal names the flag and the bound") {
    struct Case {
      std::vector<std::string> args;
      std::string message;
    };
    for (const Case& c : {
             Case{{"--batch-wait-ms", "-1"}, "--batch-wait-ms: expected an integer in [0, 60000]"},
             Case{{"--batch-wait-ms", "60001"},
                  "--batch-wait-ms: expected an integer in [0, 60000]"},
             Case{{"--batch-wait-ms", "soon"}, "--batch-wait-ms: expected an integer"},
             Case{{"--batch-wait-ms"}, "--batch-wait-ms needs a value"},
             Case{{"--batch-wait-ms", "5", "--max-batch-texts", "1"},
                  "--max-batch-texts: expected an integer in [2, 1024]"},
             Case{{"--max-batch-texts", "8"}, "--max-batch-texts needs --batch-wait-ms"},
             Case{{"--batch-wait-ms", "5", "--max-batch-texts", "64"},
                  "--max-batch-texts 64 is more than --run-batch 32"},
             Case{{"--run-batch", "1", "--batch-wait-ms", "5"},
                  "--batch-wait-ms needs --run-batch 2 or more"},
         }) {
      std::vector<std::string> args = c.args;
      args.insert(args.begin(), "m.nrmt");
      auto parsed = parse(args);
      INFO("args: " << args.size() << " " << c.message);
      REQUIRE_FALSE(parsed.is_ok());
      CHECK_MESSAGE(parsed.status().message().find(c.message) != std::string::npos,
                    parsed.status().message());
    }
  }

  TEST_CASE("an option given twice is refused naming both values; --served-name repeats") {
    auto port = parse({"m.nrmt", "--port", "8080", "--port", "9090"});
    REQUIRE_FALSE(port.is_ok());
    CHECK_MESSAGE(
        port.status().message() == "--port given twice ('8080', then '9090'): give it once",
        port.status().message());
    auto vocab = parse({"m.nrmt", "--vocab", "a.txt", "--vocab", "b.txt"});
    REQUIRE_FALSE(vocab.is_ok());
    CHECK(vocab.status().message().find("--vocab given twice") != std::string::npos);
    auto names = parse({"m.nrmt", "--served-name", "a", "--served-name", "b"});
    REQUIRE_MESSAGE(names.is_ok(), names.status().message());
    CHECK(names.value().service.model_name == "a");
    CHECK(names.value().service.model_aliases == std::vector<std::string>{"b"});
  }
}

}  // namespace normrt::serve
