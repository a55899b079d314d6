#pragma once
// normrt-bench's terminal table: per model, one row per (norm × fused/unfused)
// variant with p50/p99 latency, the ratio to LayerNorm and the norms' share
// of node time, then the time per node kind of every variant.
#include <string>

#include "tools/bench/bench_report.h"

namespace normrt::bench {

/// The tables of every model of `report`, with a header naming the machine
/// and a footnote on how fused norms are counted.
std::string format_table(const BenchReport& report);

}  // namespace normrt::bench
