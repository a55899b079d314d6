#pragma once
// Internal to normrt_kernels_conv: the process's oneDNN CPU engine, made on
// first use. (Streams are per caller: see the Contexts.)
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {

dnnl::engine& onednn_cpu_engine();

}  // namespace normrt
