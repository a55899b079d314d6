#pragma once
// normrt-bench's chart, hand-written SVG (no dependency): grouped bars of p50
// latency, one group per model (per width for the built-in encoder), one bar
// series per (norm × fused/unfused) variant — colour by norm, unfused paler —
// and, when LayerNorm was measured, a second panel of p50 relative to
// LayerNorm in the same mode (bars from 1: below is faster). Each series is
// one <g class="series" data-variant="..."> holding its bars and legend
// entry; every bar has a <title> with its values.
#include <string>

#include "tools/bench/bench_report.h"

namespace normrt::bench {

/// The chart of `report` as a standalone SVG document.
std::string format_svg(const BenchReport& report);

}  // namespace normrt::bench
