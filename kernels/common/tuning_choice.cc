#include "kernels/common/tuning_choice.h"

#include <cstdlib>
#include <cstring>

#include "kernels/common/isa.h"

namespace normrt {

bool cpu_vendor_is(const char* vendor) { return std::strcmp(cpu_vendor(), vendor) == 0; }

bool tuning_choice(const char* variable, const char* off, const char* on, bool fallback) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return fallback;
  if (std::strcmp(value, off) == 0) return false;
  if (std::strcmp(value, on) == 0) return true;
  return fallback;
}

}  // namespace normrt
