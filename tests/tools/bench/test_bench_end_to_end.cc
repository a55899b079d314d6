// normrt-bench run as a user runs it, on a tiny encoder written at test time
// and on the built-in encoder at a small width: its JSON is consistent with
// itself and with what was asked, its SVG is well-formed with one series per
// variant, and bad arguments fail with a clear message and exit code.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "bench_output_checks.h"
#include "runtime/format/model_file.h"
#include "tests/support/scratch_dir.h"
#include "tiny_encoder.h"

namespace normrt::bench {
namespace {

const std::string kBinary = NORMRT_BENCH_BINARY;
std::string scratch() { return test::scratch_dir(NORMRT_BENCH_SCRATCH_DIR, "bench-scratch"); }

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Outcome run_bench(const std::string& arguments, const std::string& tag) {
  const std::string log = scratch() + "/" + tag + ".log";
  const int status = std::system((kBinary + " " + arguments + " > " + log + " 2>&1").c_str());
  Outcome outcome;
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.output = test::read_text(log);
  return outcome;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string tiny_model_path() {
  static const std::string path = [] {
    const std::string file = scratch() + "/tiny_encoder.nrmt";
    Status written = write_model_file(test::tiny_encoder(), file);
    REQUIRE_MESSAGE(written.is_ok(), written.message());
    return file;
  }();
  return path;
}

}  // namespace

TEST_SUITE("bench_end_to_end") {
  TEST_CASE("the XML check used on the SVG rejects what is not well-formed") {
    CHECK(test::xml_problem("<svg><g a=\"1\"/></svg>").empty());
    CHECK(test::xml_problem("<?xml version=\"1.0\"?>\n<svg><text>a &amp; b</text></svg>").empty());
    for (const char* bad : {"<svg><g></svg>", "<svg>", "<svg></g>", "<svg a=1></svg>",
                            "<svg><text>a & b</text></svg>", "<svg/><svg/>", "<svg a=\"<\"></svg>",
                            "<svg><text>1 < 2</text></svg>"}) {
      CAPTURE(bad);
      CHECK_FALSE(test::xml_problem(bad).empty());
    }
  }

  TEST_CASE("a model file: every variant measured, the JSON consistent, the SVG well-formed") {
    const std::string json_path = scratch() + "/tiny.json", svg_path = scratch() + "/tiny.svg";
    const Outcome outcome =
        run_bench(tiny_model_path() + " --seq-len 5 --runs 4 --warmup 1 --max-seconds 0 --json " +
                      json_path + " --plot " + svg_path,
                  "tiny");
    INFO(outcome.output);
    REQUIRE(outcome.exit_code == 0);
    CHECK(contains(outcome.output, "vs LN"));  // the table

    const nlohmann::json report = nlohmann::json::parse(test::read_text(json_path));
    const std::vector<std::string> norms = {"layer_norm", "rms_norm", "prms_norm:0.0625",
                                            "prms_norm:0.125", "prms_norm:0.25"};
    test::check_report(report, norms, /*unfused=*/true, /*rounds=*/4, /*sequence_length=*/5);
    const nlohmann::json& model = report["models"][0];
    CHECK(model["stored_norm"] == "layer_norm");
    CHECK(model["width"].is_null());
    for (const nlohmann::json& v : model["variants"]) {
      CAPTURE(v["label"].get<std::string>());
      CHECK(v["as_stored"] == (v["norm"] == "layer_norm"));
      // The tiny encoder has three norms; fused, two sit inside FusedLinear nodes.
      if (v["fused"]) {
        CHECK(v["nodes"]["norm"] == 1);
        CHECK(v["nodes"]["fused_with_norm"] == 2);
      } else {
        CHECK(v["nodes"]["norm"] == 3);
        CHECK(v["nodes"]["fused_with_norm"] == 0);
        CHECK(v["node_ms_per_run"]["fused_linear"] == 0.0);
      }
    }
    test::check_svg(test::read_text(svg_path), report);
  }

  TEST_CASE("--json - writes only JSON to stdout; --no-unfused and --norms select the variants") {
    const std::string out = scratch() + "/stdout.json";
    const int status = std::system((kBinary + " " + tiny_model_path() +
                                    " --runs 2 --warmup 0 --no-unfused --norms "
                                    "rms_norm,prms_norm:1/4 --json - > " +
                                    out + " 2>/dev/null")
                                       .c_str());
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    const nlohmann::json report = nlohmann::json::parse(test::read_text(out));
    test::check_report(report, {"rms_norm", "prms_norm:0.25"}, /*unfused=*/false, 2,
                       /*sequence_length=*/8);  // default 32, capped at the model's 8
    for (const nlohmann::json& v : report["models"][0]["variants"]) {
      CHECK(v["ratio_vs_layer_norm"].is_null());  // no LayerNorm to compare with
      CHECK_FALSE(v["as_stored"].get<bool>());
    }
  }

  TEST_CASE("the built-in encoder at two small widths: one model per width, a group per width") {
    const std::string json_path = scratch() + "/builtin.json",
                      svg_path = scratch() + "/builtin.svg";
    const Outcome outcome = run_bench(
        "--widths 64,96 --seq-len 3 --runs 2 --warmup 0 --norms "
        "layer_norm,prms_norm:0.125 --quiet --json " +
            json_path + " --plot " + svg_path,
        "builtin");
    INFO(outcome.output);
    REQUIRE(outcome.exit_code == 0);
    CHECK(outcome.output.empty());  // --quiet
    const nlohmann::json report = nlohmann::json::parse(test::read_text(json_path));
    test::check_report(report, {"layer_norm", "prms_norm:0.125"}, true, 2, 3);
    REQUIRE(report["models"].size() == 2);
    CHECK(report["models"][0]["width"] == 64);
    CHECK(report["models"][1]["width"] == 96);
    CHECK(report["settings"]["builtin"] == true);
    const std::string svg = test::read_text(svg_path);
    test::check_svg(svg, report);
    CHECK(contains(svg, ">width 64<"));
    CHECK(contains(svg, ">width 96<"));
  }

  TEST_CASE("bad arguments and a missing model fail with their reason") {
    struct Case {
      std::string arguments, message;
      int exit_code;
    };
    const Case cases[] = {
        {"--norms layer_norm,group_norm", "unknown norm 'group_norm'", 2},
        {"--norms prms_norm:1.5", "must be in (0, 1], found 1.5", 2},
        {"--norms prms_norm:0", "must be in (0, 1], found 0", 2},
        {"--widths 256,300", "'300' is not a width", 2},
        {"/nonexistent/model.nrmt --runs 1", "/nonexistent/model.nrmt", 1},
        {tiny_model_path() + " --seq-len 9", "exceeds the model's max_sequence_length 8", 1},
        {tiny_model_path() + " --norms prms_norm:0.01 --runs 1", "floor(p·n) = 0", 1},
        {tiny_model_path() + " --isa bogus --runs 1", "bogus", 1},
        {"--json /nonexistent/dir/out.json", "the folder '/nonexistent/dir' does not exist", 1},
    };
    for (const Case& c : cases) {
      CAPTURE(c.arguments);
      const Outcome outcome = run_bench(c.arguments, "error");
      INFO(outcome.output);
      CHECK(outcome.exit_code == c.exit_code);
      CHECK(contains(outcome.output, "normrt-bench: "));
      CHECK(contains(outcome.output, c.message));
    }
  }

  TEST_CASE(
      "--json and --plot never replace the model, a FIFO or a device, and say so before "
      "measuring") {
    const std::string model = tiny_model_path();
    const std::string before = test::read_text(model);
    const std::string fifo = scratch() + "/pipe.svg";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string folder = scratch() + "/folder.svg";
    REQUIRE(::mkdir(folder.c_str(), 0700) == 0);
    const std::string chart = scratch() + "/chart.svg", link = scratch() + "/link.svg";
    std::ofstream(chart) << "an earlier chart";
    REQUIRE(::symlink("chart.svg", link.c_str()) == 0);
    struct Case {
      std::string arguments, message;
    };
    const Case cases[] = {
        {"--json " + model, "is the model input"},
        {"--json /dev/null", "is not a regular file (a character device)"},
        {"--plot " + fifo, "is not a regular file (a FIFO)"},  // opening it would hang
        {"--plot " + folder, "is a directory"},
        {"--json " + chart + " --plot " + link, "lead to the same file"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.arguments);
      const Outcome outcome = run_bench(model + " --runs 1 " + c.arguments, "refused");
      INFO(outcome.output);
      CHECK(outcome.exit_code == 1);
      CHECK(contains(outcome.output, c.message));
      CHECK_FALSE(contains(outcome.output, "p50"));  // refused before any measuring
    }
    CHECK(test::read_text(model) == before);
    CHECK(test::read_text(chart) == "an earlier chart");
  }
}

}  // namespace normrt::bench
