#pragma once
// normrt-bench's JSON output; the schema ("normrt-bench/1") is documented in
// docs/bench.md and checked by tests/tools/bench.
#include <string>

#include "tools/bench/bench_report.h"

namespace normrt::bench {

/// The whole report as a JSON document (pretty-printed, ending in a newline).
std::string format_json(const BenchReport& report);

}  // namespace normrt::bench
