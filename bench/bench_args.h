#pragma once
// Command-line handling shared by the benchmark programs.

#include <cstring>
#include <vector>

namespace normrt::bench {

/// argv (null-terminated) with `default_min_time_flag` (e.g.
/// "--benchmark_min_time=0.1") appended unless the user passed a
/// --benchmark_min_time of their own: keeps a default full run short.
inline std::vector<char*> with_default_min_time(int argc, char** argv,
                                                const char* default_min_time_flag) {
  std::vector<char*> args(argv, argv + argc);
  bool has_min_time = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) has_min_time = true;
  }
  if (!has_min_time) args.push_back(const_cast<char*>(default_min_time_flag));
  args.push_back(nullptr);
  return args;
}

}  // namespace normrt::bench
