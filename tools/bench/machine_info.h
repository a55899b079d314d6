#pragma once
// What normrt-bench records about the machine it ran on.
#include "tools/bench/bench_report.h"

namespace normrt::bench {

/// CPU model (/proc/cpuinfo "model name", else "unknown"), logical CPUs and
/// the CPUs this process may run on (sched_getaffinity: 1 under taskset -c 1).
/// MachineInfo::isa is left for the caller (the ISA the models were compiled for).
MachineInfo read_machine_info();

}  // namespace normrt::bench
