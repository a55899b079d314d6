#pragma once
// Allowed: kernels/ includes base/.
#include "base/uses_kernels.h"
