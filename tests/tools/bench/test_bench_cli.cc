// normrt-bench's argument parser and statistics: defaults, and every bad
// argument named in its error.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/bench/bench_cli.h"
#include "tools/bench/bench_report.h"

namespace normrt::bench {
namespace {

Expected<BenchOptions> parse(std::vector<std::string> args, bool* help = nullptr) {
  args.insert(args.begin(), "normrt-bench");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  bool ignored = false;
  return parse_bench_options(int(argv.size()), argv.data(), help ? help : &ignored);
}

std::string error_of(std::vector<std::string> args) {
  auto options = parse(std::move(args));
  REQUIRE_FALSE(options.is_ok());
  return options.status().message();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("bench_cli") {
  TEST_CASE("defaults: the built-in encoder, all five norms, fused and unfused, three widths") {
    auto options = parse({});
    REQUIRE(options.is_ok());
    CHECK(options->model.empty());
    CHECK(options->unfused);
    CHECK(options->widths == std::vector<int64_t>{256, 384, 768});
    CHECK(options->runs == 100);
    CHECK(options->max_seconds == 60);
    REQUIRE(options->norms.size() == 5);
    const char* labels[] = {"layer_norm", "rms_norm", "prms_norm:0.0625", "prms_norm:0.125",
                            "prms_norm:0.25"};
    for (size_t i = 0; i < 5; ++i) CHECK(norm_replacement_label(options->norms[i]) == labels[i]);

    auto file = parse({"model.nrmt", "--norms", "rms_norm,prms_norm:1/8", "--no-unfused",
                       "--seq-len", "7", "--json", "-", "--max-seconds", "2.5"});
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    CHECK(file->model == "model.nrmt");
    CHECK(file->widths.empty());  // widths belong to the built-in encoder
    CHECK_FALSE(file->unfused);
    CHECK(file->sequence_length == 7);
    CHECK(file->json_path == "-");
    CHECK(file->max_seconds == 2.5);
    REQUIRE(file->norms.size() == 2);
    CHECK(file->norms[1].kind == NormKind::kPRmsNorm);
    CHECK(file->norms[1].p == 0.125);

    bool help = false;
    CHECK(parse({"--help"}, &help).is_ok());
    CHECK(help);
    CHECK(contains(bench_usage(), "example"));
  }

  TEST_CASE("bad norms are named: unknown, p out of range, p missing, p on another norm, twice") {
    CHECK(contains(error_of({"--norms", "layer_norm,batch_norm"}), "unknown norm 'batch_norm'"));
    for (const char* p : {"0", "1.5", "-0.25", "1/0", "abc", "nan", ""}) {
      CAPTURE(p);
      const std::string message = error_of({"--norms", std::string("prms_norm:") + p});
      CHECK(contains(message, std::string("'prms_norm:") + p + "'"));
    }
    CHECK(contains(error_of({"--norms", "prms_norm:0"}), "(0, 1]"));
    CHECK(contains(error_of({"--norms", "prms_norm:2"}), "found 2"));
    CHECK(contains(error_of({"--norms", "prms_norm"}), "needs its p"));
    CHECK(contains(error_of({"--norms", "rms_norm:0.5"}), "only prms_norm takes a p"));
    CHECK(contains(error_of({"--norms", "rms_norm,rms_norm"}), "listed twice"));
    CHECK(contains(error_of({"--norms", "prms_norm:0.125,prms_norm:1/8"}), "listed twice"));
    CHECK(contains(error_of({"--norms", "rms_norm,"}), "unknown norm ''"));
  }

  TEST_CASE("--threads 0 means the CPUs this process may use, reported as that count") {
    auto zero = parse({"--threads", "0"});
    REQUIRE(zero.is_ok());
    CHECK(zero.value().threads == available_cpus());
    auto two = parse({"--threads", "2"});
    REQUIRE(two.is_ok());
    CHECK(two.value().threads == 2);
  }

  TEST_CASE("bad widths, counts and options are named") {
    for (const char* width : {"100", "0", "32", "abc", "4096", "-64", "384x", ""}) {
      CAPTURE(width);
      const std::string message = error_of({"--widths", std::string("256,") + width});
      CHECK(contains(message, std::string("--widths: '") + width + "' is not a width"));
      CHECK(contains(message, "multiple of 32"));
    }
    CHECK(contains(error_of({"m.nrmt", "--widths", "256"}), "built-in encoder only"));
    CHECK(contains(error_of({"--runs", "0"}), "--runs: expected an integer in [1,"));
    CHECK(contains(error_of({"--seq-len", "-3"}), "--seq-len"));
    CHECK(contains(error_of({"--threads", "x"}), "--threads"));
    CHECK(
        contains(error_of({"--threads", "20000"}), "--threads: expected an integer in [0, 1024]"));
    CHECK(contains(error_of({"--max-seconds", "-1"}), "--max-seconds"));
    CHECK(contains(error_of({"--bogus"}), "unknown option '--bogus'"));
    CHECK(contains(error_of({"--json"}), "--json needs a value"));
    CHECK(contains(error_of({"a.nrmt", "b.nrmt"}), "unexpected argument 'b.nrmt'"));
    CHECK(contains(error_of({"--json", "x.svg", "--plot", "x.svg"}), "same file"));
    CHECK(contains(error_of({"--plot", "chart.png"}), "'chart.png': the chart is written as SVG"));
    CHECK(contains(error_of({"--plot", "svg"}), "the .svg suffix"));
    CHECK(parse({"--plot", "chart.SVG"}).is_ok());
    CHECK(parse({"--plot", "-"}).is_ok());
    CHECK(error_of({"--runs", "10", "--runs", "20"}) ==
          "--runs given twice ('10', then '20'): give it once");
    CHECK(contains(error_of({"--norms", "rms_norm", "--norms", "layer_norm"}),
                   "--norms given twice ('rms_norm', then 'layer_norm')"));
  }

  TEST_CASE("percentile is the nearest rank; summarize derives p50, p99, shares and ratios") {
    // Nearest rank by its definition: the smallest v with count(≤ v) ≥ q·n.
    for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{100}, size_t{101}}) {
      std::vector<double> values;
      for (size_t i = 0; i < n; ++i) values.push_back(double((i * 37) % n) + 0.5);
      for (double q : {0.5, 0.99, 1.0}) {
        double expected = 0;
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        for (double v : sorted) {
          const size_t at_or_below =
              size_t(std::count_if(values.begin(), values.end(), [v](double x) { return x <= v; }));
          if (double(at_or_below) >= q * double(n)) {
            expected = v;
            break;
          }
        }
        CAPTURE(n);
        CAPTURE(q);
        CHECK(percentile(values, q) == expected);
      }
    }
    CHECK(percentile({}, 0.5) == 0);

    ModelResult model;
    for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm}) {
      VariantResult v;
      v.norm.kind = kind;
      v.samples_ms = kind == NormKind::kLayerNorm ? std::vector<double>{4, 2, 3}
                                                  : std::vector<double>{1, 3, 2, 5};
      v.node_ms.linear = 1;
      v.node_ms.norm = 0.5;
      v.node_ms.fused_with_norm = 0.5;
      model.variants.push_back(v);
    }
    summarize(model);
    CHECK(model.variants[0].p50_ms == 3);
    CHECK(model.variants[0].p99_ms == 4);
    CHECK(model.variants[0].mean_ms == 3);
    CHECK(model.variants[1].p50_ms == 2);
    CHECK(model.variants[1].ratio_vs_layer_norm == doctest::Approx(2.0 / 3.0));
    CHECK(model.variants[0].ratio_vs_layer_norm == 1.0);
    CHECK(model.variants[0].norm_share == 0.25);
    CHECK(model.variants[0].fused_with_norm_share == 0.25);
  }
}

}  // namespace normrt::bench
