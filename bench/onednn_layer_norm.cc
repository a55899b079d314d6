#include "bench/onednn_layer_norm.h"

#include <dlfcn.h>

#include <unordered_map>
#include <utility>

#include "kernels/onednn/onednn_engine.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt::bench {
namespace {

const char* threading_runtime_name() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  return "OpenMP";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
  return "TBB";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
  return "sequential";
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_THREADPOOL
  return "threadpool";
#else
  return "unknown";
#endif
}

}  // namespace

std::string onednn_use_one_thread() {
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  // oneDNN 2.6 has no thread-count API: on OpenMP it uses omp_get_max_threads().
  // Setting OMP_NUM_THREADS here would be too late, because libgomp reads it in
  // a library constructor, before main. So set the ICV through the OpenMP
  // runtime that oneDNN itself loaded, found by symbol: this file needs no
  // -fopenmp, which under clang would link a second runtime (libomp) beside
  // oneDNN's libgomp and set the wrong one. Benchmarks run on this (the
  // initial) thread, whose ICV this sets.
  using SetThreads = void (*)(int);
  using GetThreads = int (*)();
  auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  auto get_threads = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  if (set_threads == nullptr || get_threads == nullptr) {
    return "OpenMP, runtime not found: thread count NOT enforced";
  }
  set_threads(1);
  int threads = get_threads();
  return "OpenMP, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads (NOT 1)");
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_SEQ
  return "sequential, 1 thread";
#else
  return std::string(threading_runtime_name()) + ": thread count NOT enforced";
#endif
}

std::string onednn_version_string() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (" + threading_runtime_name() + ")";
}

struct OneDnnLayerNorm::Impl {
  dnnl::layer_normalization_forward primitive;
  std::unordered_map<int, dnnl::memory> args;
};

Expected<std::unique_ptr<OneDnnLayerNorm>> OneDnnLayerNorm::create(size_t rows, size_t n, float eps,
                                                                   const float* src, float* dst,
                                                                   const float* scale,
                                                                   const float* shift) {
  using dnnl::memory;
  try {
    dnnl::engine& engine = onednn_cpu_engine();
    // Rows contiguous, stride n: the plain 2-D layout "ab" (normalized over b).
    memory::desc data_md({static_cast<memory::dim>(rows), static_cast<memory::dim>(n)},
                         memory::data_type::f32, memory::format_tag::ab);
    memory::desc channel_md({static_cast<memory::dim>(n)}, memory::data_type::f32,
                            memory::format_tag::a);  // (n): scale, shift

    // oneDNN 2.6 takes scale and shift as two separate f32 tensors with these
    // flags (the older use_scaleshift packs them into one (2, n) tensor).
    dnnl::layer_normalization_forward::desc desc(
        dnnl::prop_kind::forward_inference, data_md, eps,
        dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, engine);

    auto impl = std::make_unique<Impl>();
    impl->primitive = dnnl::layer_normalization_forward(pd);
    // The primitive reads src, scale, shift and writes dst in place of the
    // caller's buffers: no copies are timed.
    impl->args[DNNL_ARG_SRC] = memory(data_md, engine, const_cast<float*>(src));
    impl->args[DNNL_ARG_DST] = memory(data_md, engine, dst);
    impl->args[DNNL_ARG_SCALE] = memory(channel_md, engine, const_cast<float*>(scale));
    impl->args[DNNL_ARG_SHIFT] = memory(channel_md, engine, const_cast<float*>(shift));
    // Forward inference keeps its statistics in the scratchpad; if this build
    // asks for them as arguments anyway, give it buffers of its own.
    if (pd.mean_desc().get_size() != 0) {
      impl->args[DNNL_ARG_MEAN] = memory(pd.mean_desc(), engine);
      impl->args[DNNL_ARG_VARIANCE] = memory(pd.variance_desc(), engine);
    }
    return std::unique_ptr<OneDnnLayerNorm>(new OneDnnLayerNorm(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("oneDNN layer_normalization_forward: ") + e.what());
  }
}

OneDnnLayerNorm::OneDnnLayerNorm(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnLayerNorm::~OneDnnLayerNorm() = default;

Status OneDnnLayerNorm::run() {
  try {
    dnnl::stream& stream = onednn_thread_stream();
    impl_->primitive.execute(stream, impl_->args);
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("oneDNN execute: ") + e.what());
  }
}

}  // namespace normrt::bench
