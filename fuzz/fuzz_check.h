#pragma once
// FUZZ_CHECK: an invariant of the code under test that a fuzz input broke.
// It prints what failed and aborts, which libFuzzer (and the replay test,
// tests/fuzz/) report as a crash, so the input is saved and becomes a
// regression file. Used for properties stronger than "no crash": a parsed
// tensor lies inside the input, a decoded model re-encodes to the same bytes.
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, ...)                                                            \
  do {                                                                                        \
    if (!(condition)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed: ", __FILE__, __LINE__, #condition); \
      std::fprintf(stderr, __VA_ARGS__);                                                      \
      std::fprintf(stderr, "\n");                                                             \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)
