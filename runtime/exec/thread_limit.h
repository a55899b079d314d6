#pragma once
// The one place that decides how many intra-op threads a session may have
// (SessionOptions::threads, the C API, normrt-run, normrt-bench and the
// server all ask here). Today: 0 and 1 mean the calling thread only, and at
// most max_session_threads() = 1024 on any machine, so that a typo (20,000)
// is an error instead of 20,000 threads.
#include <cstddef>

#include "normrt/normrt.hpp"

namespace normrt {

/// An error naming `threads` and the limit if it is beyond it.
Status check_session_threads(size_t threads);

}  // namespace normrt
