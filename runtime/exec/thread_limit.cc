#include "runtime/exec/thread_limit.h"

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

#include "base/status.h"

#ifdef __linux__
#include <sched.h>
#endif

namespace normrt {
namespace {

// Fixed rather than a multiple of the CPUs: a program that runs on one
// machine runs on another, and the tests see the same bound everywhere.
constexpr size_t kMaxSessionThreads = 1024;

#ifdef __linux__
// The CPUs in this thread's affinity mask (taskset, cgroup cpusets), asking
// with a larger set while the kernel's mask does not fit (> 1024 CPUs).
size_t affinity_cpus() {
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return 0;
    const size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set);
    const int got = sched_getaffinity(0, bytes, set);
    const size_t count = got == 0 ? static_cast<size_t>(CPU_COUNT_S(bytes, set)) : 0;
    CPU_FREE(set);
    if (got == 0) return count;
    if (errno != EINVAL) return 0;  // EINVAL: the mask is larger than the set
  }
  return 0;
}
#else
size_t affinity_cpus() { return std::thread::hardware_concurrency(); }
#endif

}  // namespace

size_t max_session_threads() { return kMaxSessionThreads; }

size_t available_cpus() {
  const size_t cpus = affinity_cpus();
  return std::clamp<size_t>(cpus, 1, kMaxSessionThreads);
}

Status check_session_threads(size_t threads) {
  if (threads <= max_session_threads()) return Status::ok();
  return Status::error("SessionOptions: threads = " + std::to_string(threads) +
                       " exceeds the limit of " + std::to_string(max_session_threads()) +
                       " (max_session_threads())");
}

Expected<size_t> resolve_session_threads(size_t threads) {
  NORMRT_RETURN_IF_ERROR(check_session_threads(threads));
  return threads == 0 ? available_cpus() : threads;
}

}  // namespace normrt
