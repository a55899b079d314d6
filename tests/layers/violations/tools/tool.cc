// Two violations: test code, and a project folder that is in no layer.
#include "tests/support/helper.h"
#include "runtime/unknown/thing.h"
#include "models/model.h"
