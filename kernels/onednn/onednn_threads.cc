#include "kernels/onednn/onednn_threads.h"

#include <dlfcn.h>

#include "oneapi/dnnl/dnnl_config.h"

namespace normrt {
namespace {

// The OpenMP runtime oneDNN runs on, found once.
struct OpenMp {
  void (*set_num_threads)(int) = nullptr;
  int (*get_max_threads)() = nullptr;
  bool found() const { return set_num_threads != nullptr && get_max_threads != nullptr; }
};

const OpenMp& openmp() {
  static const OpenMp runtime = [] {
    OpenMp r;
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    // libdnnl.so.2 depends on libgomp.so.1, so it is loaded; NOLOAD only
    // looks it up (and takes a reference, never released: it stays loaded
    // as long as oneDNN does anyway).
    if (void* gomp = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD)) {
      r.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads"));
      r.get_max_threads = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_max_threads"));
    }
#endif
    return r;
  }();
  return runtime;
}

}  // namespace

OneDnnThreadScope::OneDnnThreadScope(size_t threads) {
  const OpenMp& omp = openmp();
  if (!omp.found()) return;
  const int wanted = threads == 0 ? 1 : static_cast<int>(threads);
  const int current = omp.get_max_threads();
  if (current == wanted) return;
  omp.set_num_threads(wanted);
  previous_ = current;
}

OneDnnThreadScope::~OneDnnThreadScope() {
  if (previous_ > 0) openmp().set_num_threads(previous_);
}

std::string onednn_threading_description() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  return openmp().found() ? "OpenMP (libgomp.so.1): thread count bounded per call"
                          : "OpenMP, but libgomp.so.1 not found: thread count NOT bounded";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
  return "sequential: one thread";
#else
  return "TBB or threadpool runtime: thread count NOT bounded";
#endif
}

}  // namespace normrt
