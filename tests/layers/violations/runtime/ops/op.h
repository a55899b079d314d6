#pragma once
// Allowed: ops/ includes the graph IR; a third-party header in quotes is
// not checked.
#include "runtime/graph/graph.h"
#include "oneapi/dnnl/dnnl.hpp"
