#include "kernels/onednn/onednn_engine.h"

namespace normrt {

dnnl::engine& onednn_cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_thread_stream() {
  thread_local dnnl::stream stream(onednn_cpu_engine());
  return stream;
}

}  // namespace normrt
