#pragma once
// A layer violation for test_layers_catches_violations: base/ may include
// nothing above it.
#include "kernels/kernel.h"
