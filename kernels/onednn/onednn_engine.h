#pragma once
// The process's oneDNN CPU engine, made on first use: one for every oneDNN
// user in normrt (the linear backend, convolution and pooling, the
// benchmarks' oneDNN competitors). Streams are per caller.
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {

dnnl::engine& onednn_cpu_engine();

}  // namespace normrt
