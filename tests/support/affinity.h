#pragma once
// The calling thread's CPU affinity for tests (Linux): the mask as the kernel
// lists it in /proc/thread-self/status, counted without sched_getaffinity
// (the call under test), and a scope that narrows the mask and restores it.
#include <sched.h>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>

namespace normrt::testing {

/// The CPUs in "Cpus_allowed_list:" ("0-3,8,10-11" → 7); 0 if unreadable.
inline size_t cpus_allowed_in_proc_status() {
  std::ifstream status("/proc/thread-self/status");
  std::string line;
  while (std::getline(status, line)) {
    const std::string key = "Cpus_allowed_list:";
    if (line.compare(0, key.size(), key) != 0) continue;
    std::stringstream list(line.substr(key.size()));
    std::string range;
    size_t count = 0;
    while (std::getline(list, range, ',')) {
      const size_t dash = range.find('-');
      const size_t first = std::stoul(range.substr(0, dash));
      const size_t last = dash == std::string::npos ? first : std::stoul(range.substr(dash + 1));
      count += last - first + 1;
    }
    return count;
  }
  return 0;
}

/// Narrows the calling thread's affinity to the first `cpus` CPUs it may use,
/// and restores the mask it had on destruction. applied() is false if the
/// kernel refused (then nothing changed).
class AffinityScope {
 public:
  explicit AffinityScope(size_t cpus) {
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
    cpu_set_t narrow;
    CPU_ZERO(&narrow);
    size_t taken = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && taken < cpus; ++cpu) {
      if (CPU_ISSET(cpu, &saved_)) {
        CPU_SET(cpu, &narrow);
        ++taken;
      }
    }
    applied_ = taken == cpus && sched_setaffinity(0, sizeof narrow, &narrow) == 0;
  }
  ~AffinityScope() {
    if (applied_) sched_setaffinity(0, sizeof saved_, &saved_);
  }
  AffinityScope(const AffinityScope&) = delete;
  AffinityScope& operator=(const AffinityScope&) = delete;
  bool applied() const { return applied_; }

 private:
  cpu_set_t saved_;
  bool applied_ = false;
};

}  // namespace normrt::testing
