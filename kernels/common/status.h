#pragma once
// Status and Expected<T> are part of the public API (include/normrt/); the
// kernels use the very same types.
#include "normrt/status.h"
