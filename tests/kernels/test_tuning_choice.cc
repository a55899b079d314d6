// tuning_choice(): the variable's two values force false and true, anything
// else (unset, empty, a typo) leaves the CPU-derived fallback; and
// cpu_vendor_is() agrees with cpu_vendor().
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

#include "kernels/common/isa.h"
#include "kernels/common/tuning_choice.h"

namespace normrt::testing {
namespace {

constexpr const char* kVariable = "NORMRT_TEST_TUNING_CHOICE";

TEST_CASE("tuning_choice: the two values force it, anything else keeps the fallback") {
  for (bool fallback : {false, true}) {
    CAPTURE(fallback);
    ::unsetenv(kVariable);
    CHECK(tuning_choice(kVariable, "l1", "l2", fallback) == fallback);
    ::setenv(kVariable, "l1", 1);
    CHECK_FALSE(tuning_choice(kVariable, "l1", "l2", fallback));
    ::setenv(kVariable, "l2", 1);
    CHECK(tuning_choice(kVariable, "l1", "l2", fallback));
    for (const char* other : {"", "L2", "l3", "l2 ", "1"}) {
      CAPTURE(other);
      ::setenv(kVariable, other, 1);
      CHECK(tuning_choice(kVariable, "l1", "l2", fallback) == fallback);
    }
  }
  ::unsetenv(kVariable);
}

TEST_CASE("cpu_vendor_is matches the CPUID vendor string exactly") {
  CHECK(cpu_vendor_is(cpu_vendor()));
  const bool intel = std::strcmp(cpu_vendor(), "GenuineIntel") == 0;
  CHECK(cpu_vendor_is("GenuineIntel") == intel);
  CHECK_FALSE(cpu_vendor_is("GenuineIntelX"));
}

}  // namespace
}  // namespace normrt::testing
