#include "kernels/onednn/onednn_engine.h"

namespace normrt {

dnnl::engine& onednn_cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace normrt
