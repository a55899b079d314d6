#pragma once
// How many threads oneDNN's primitives use, and how normrt bounds it.
//
// Debian's libdnnl2 (oneDNN 2.6.3) is built with DNNL_CPU_RUNTIME=OMP: a
// primitive runs on GCC's OpenMP runtime (libgomp.so.1, a dependency of
// libdnnl.so.2) with omp_get_max_threads() threads of the calling thread, and
// the jit/brgemm implementations size their work split from that count when
// the primitive is *created*. oneDNN 2.6 has no thread-count API of its own
// (dnnl_set_num_threads came with the threadpool runtime only). So normrt
// sets the calling thread's OpenMP ICV (omp_set_num_threads) around both the
// creation and every execution of a primitive, and restores it afterwards:
// the caller's own OpenMP setting is left as it was. The runtime is reached
// through the libgomp.so.1 that oneDNN itself loaded (dlopen RTLD_NOLOAD), not
// through whatever OpenMP a host process (PyTorch ships its own libgomp) put
// in the global symbol scope.
//
// OpenMP's threads are not normrt's ThreadPool: a session with T threads runs
// its own kernels on the pool and oneDNN's on T OpenMP threads (the calling
// thread plus T − 1 of libgomp's, which spin for GOMP_SPINCOUNT after a
// region). With T = 1 oneDNN calls its kernel inline: no OpenMP region.
#include <cstddef>
#include <string>

namespace normrt {

/// Sets oneDNN's thread count for the calling thread while it lives.
class OneDnnThreadScope {
 public:
  explicit OneDnnThreadScope(size_t threads);
  ~OneDnnThreadScope();
  OneDnnThreadScope(const OneDnnThreadScope&) = delete;
  OneDnnThreadScope& operator=(const OneDnnThreadScope&) = delete;

 private:
  int previous_ = 0;  // 0: nothing to restore
};

/// "OpenMP (libgomp.so.1): thread count bounded per call", or what is missing.
std::string onednn_threading_description();

}  // namespace normrt
