#pragma once
// The one place that decides how many intra-op threads a session has
// (SessionOptions::threads, the C API, normrt-run, normrt-bench and the
// server all ask here): `threads` as given, 0 meaning as many as the process
// may use (available_cpus(): its affinity mask), and at most
// max_session_threads() = 1024 on any machine, so that a typo (20,000) is an
// error instead of 20,000 threads.
#include <cstddef>

#include "normrt/normrt.hpp"

namespace normrt {

/// An error naming `threads` and the limit if it is beyond it.
Status check_session_threads(size_t threads);

/// The threads a session created with SessionOptions::threads = `threads`
/// runs on: `threads`, or available_cpus() for 0; an error beyond the limit.
Expected<size_t> resolve_session_threads(size_t threads);

}  // namespace normrt
