// The library's version for both APIs (normrt::version(), normrt_version()),
// from the CMake project's version.
#include "normrt/normrt.h"
#include "normrt/normrt.hpp"

namespace normrt {
const char* version() { return NORMRT_VERSION_STRING; }
}  // namespace normrt

extern "C" const char* normrt_version(void) { return normrt::version(); }
