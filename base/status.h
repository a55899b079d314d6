#pragma once
// Status and Expected<T> for normrt's own code. The types are public API and
// defined once, in include/normrt/status.h (installed with the library); this
// header is what every layer includes.
#include "normrt/status.h"
