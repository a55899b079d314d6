#pragma once
// A layer violation: the graph IR includes an op header (graph/ and ops/
// including each other is what cmake/layers.cmake forbids).
#include "runtime/ops/op.h"
