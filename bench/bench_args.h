#pragma once
// Command-line handling shared by the benchmark programs.

#include <cstring>
#include <initializer_list>
#include <vector>

namespace normrt::bench {

/// argv (null-terminated) with each of `defaults` ("--benchmark_flag=value")
/// appended unless the user passed that flag themselves.
inline std::vector<char*> with_default_flags(int argc, char** argv,
                                             std::initializer_list<const char*> defaults) {
  std::vector<char*> args(argv, argv + argc);
  for (const char* flag : defaults) {
    const char* equals = std::strchr(flag, '=');
    const size_t name_length = equals ? static_cast<size_t>(equals - flag) : std::strlen(flag);
    bool given = false;
    for (int i = 1; i < argc; ++i) {
      given = given || (std::strncmp(argv[i], flag, name_length) == 0 &&
                        (argv[i][name_length] == '=' || argv[i][name_length] == '\0'));
    }
    if (!given) args.push_back(const_cast<char*>(flag));
  }
  args.push_back(nullptr);
  return args;
}

/// with_default_flags for the one flag most programs default: a
/// --benchmark_min_time that keeps a full run short.
inline std::vector<char*> with_default_min_time(int argc, char** argv,
                                                const char* default_min_time_flag) {
  return with_default_flags(argc, argv, {default_min_time_flag});
}

}  // namespace normrt::bench
