#pragma once
// The process's oneDNN CPU engine, made on first use: one for every oneDNN
// user in normrt (the linear backend, convolution and pooling, the
// benchmarks' oneDNN competitors), and a stream on it per thread.
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {

dnnl::engine& onednn_cpu_engine();

/// The calling thread's stream on that engine, made on first use: a stream
/// is not shared between threads.
dnnl::stream& onednn_thread_stream();

}  // namespace normrt
