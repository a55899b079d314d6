#include "kernels/linear/onednn/linear_onednn.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/bf16.h"
#include "kernels/onednn/onednn_dims.h"
#include "kernels/onednn/onednn_engine.h"
#include "kernels/onednn/onednn_threads.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {
namespace {

using dnnl::memory;

Status check_weights(const float* w, size_t n, size_t k, WeightType type) {
  if (w == nullptr || n == 0 || k == 0) {
    return Status::error("OneDnnLinear: empty shape or null weights");
  }
  if (type != WeightType::kF32 && type != WeightType::kBF16) {
    return Status::error(std::string("OneDnnLinear: no ") + weight_type_name(type) +
                         " backend (f32 and bf16 only; int8 runs on normrt's kernels)");
  }
  return Status::ok();
}

memory::data_type matmul_type(WeightType type) {
  return type == WeightType::kF32 ? memory::data_type::f32 : memory::data_type::bf16;
}

// The matmul of x (rows, k) by W (n, k) row-major in `type` (+ bias (n)), and
// its weights packed once (f32 → f32 or bf16, into the layout oneDNN prefers).
// `rows`: m, or DNNL_RUNTIME_DIM_VAL for a row count given per call. Throws
// dnnl::error.
struct PackedMatmul {
  dnnl::matmul matmul;
  memory weights;  // (k, n) in oneDNN's layout, owned
  std::string impl_name;
};
PackedMatmul pack_matmul(const float* w, size_t n, size_t k, WeightType type, memory::dim rows,
                         bool with_bias) {
  // Made for one thread: implementations that fix their split here (brgemm)
  // then run on one; those that read it per call (gemm) take run_rows'.
  OneDnnThreadScope one_thread(1);
  dnnl::engine& engine = onednn_cpu_engine();
  const memory::data_type dt = matmul_type(type);
  const memory::desc x_md({rows, static_cast<memory::dim>(k)}, dt, memory::format_tag::ab);
  // W (n, k) row-major is Wᵀ (k, n) with format "ba".
  const memory::desc user_w_md(onednn_dims({k, n}), memory::data_type::f32, memory::format_tag::ba);
  const memory::desc w_any_md(onednn_dims({k, n}), dt, memory::format_tag::any);
  const memory::desc y_md({rows, static_cast<memory::dim>(n)}, memory::data_type::f32,
                          memory::format_tag::ab);
  const memory::desc bias_md(onednn_dims({1, n}), memory::data_type::f32, memory::format_tag::ab);
  dnnl::matmul::desc desc = with_bias ? dnnl::matmul::desc(x_md, w_any_md, bias_md, y_md)
                                      : dnnl::matmul::desc(x_md, w_any_md, y_md);
  dnnl::matmul::primitive_desc pd(desc, engine);
  PackedMatmul packed;
  packed.matmul = dnnl::matmul(pd);
  packed.impl_name = pd.impl_info_str();
  memory user_w(user_w_md, engine, const_cast<float*>(w));
  packed.weights = memory(pd.weights_desc(), engine);
  dnnl::stream& stream = onednn_thread_stream();
  dnnl::reorder(user_w, packed.weights).execute(stream, user_w, packed.weights);
  stream.wait();
  return packed;
}

}  // namespace

struct OneDnnLinear::Impl {
  Impl(PackedMatmul packed, WeightType type, bool bias)
      : matmul(std::move(packed.matmul)),
        weights(std::move(packed.weights)),
        convert_x(type != WeightType::kF32),
        with_bias(bias),
        impl_name(std::move(packed.impl_name)) {}

  dnnl::matmul matmul;
  memory user_x;            // (m, k) f32, the caller's buffer
  memory x;                 // (m, k) as the matmul reads it (bf16: own buffer)
  dnnl::reorder x_to_bf16;  // set for bf16 only
  memory weights;           // (k, n) in oneDNN's layout, owned
  memory y, bias;           // caller's buffers
  bool convert_x = false;
  bool with_bias = false;
  bool any_rows = false;  // create_any_rows(): M is a runtime dimension
  size_t n = 0, k = 0;
  std::string impl_name;
};

Expected<std::unique_ptr<OneDnnLinear>> OneDnnLinear::create(const float* w, size_t n, size_t k,
                                                             WeightType type, size_t m,
                                                             bool with_bias) {
  if (m == 0) return Status::error("OneDnnLinear: empty shape or null weights");
  NORMRT_RETURN_IF_ERROR(check_weights(w, n, k, type));
  try {
    auto impl = std::make_unique<Impl>(
        pack_matmul(w, n, k, type, static_cast<memory::dim>(m), with_bias), type, with_bias);
    dnnl::engine& engine = onednn_cpu_engine();
    impl->user_x = memory({onednn_dims({m, k}), memory::data_type::f32, memory::format_tag::ab},
                          engine, DNNL_MEMORY_NONE);
    impl->y = memory({onednn_dims({m, n}), memory::data_type::f32, memory::format_tag::ab}, engine,
                     DNNL_MEMORY_NONE);
    if (with_bias) {
      impl->bias = memory({onednn_dims({1, n}), memory::data_type::f32, memory::format_tag::ab},
                          engine, DNNL_MEMORY_NONE);
    }
    if (impl->convert_x) {
      // owned bf16 copy of x
      impl->x = memory({onednn_dims({m, k}), matmul_type(type), memory::format_tag::ab}, engine);
      impl->x_to_bf16 = dnnl::reorder(impl->user_x, impl->x);
    }
    return std::unique_ptr<OneDnnLinear>(new OneDnnLinear(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("OneDnnLinear: oneDNN matmul: ") + e.what());
  }
}

Expected<std::unique_ptr<OneDnnLinear>> OneDnnLinear::create_any_rows(const float* w, size_t n,
                                                                      size_t k, WeightType type,
                                                                      bool with_bias) {
  NORMRT_RETURN_IF_ERROR(check_weights(w, n, k, type));
  try {
    auto impl = std::make_unique<Impl>(pack_matmul(w, n, k, type, DNNL_RUNTIME_DIM_VAL, with_bias),
                                       type, with_bias);
    impl->any_rows = true;
    impl->n = n;
    impl->k = k;
    return std::unique_ptr<OneDnnLinear>(new OneDnnLinear(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("OneDnnLinear: oneDNN matmul: ") + e.what());
  }
}

Status OneDnnLinear::run_rows(const float* x, size_t m, float* y, const float* bias,
                              size_t threads) const {
  const Impl& s = *impl_;
  if (!s.any_rows) return Status::error("OneDnnLinear::run_rows: made without create_any_rows()");
  if ((bias != nullptr) != s.with_bias) {
    return Status::error(
        "OneDnnLinear::run_rows: bias given to a matmul created without (or vice versa)");
  }
  if (m == 0) return Status::ok();
  try {
    OneDnnThreadScope bound(threads);
    dnnl::engine& engine = onednn_cpu_engine();
    dnnl::stream& stream = onednn_thread_stream();
    const auto rows = static_cast<memory::dim>(m);
    const memory::desc y_md({rows, static_cast<memory::dim>(s.n)}, memory::data_type::f32,
                            memory::format_tag::ab);
    memory src;
    if (s.convert_x) {
      // x rounded to bf16 (nearest, ties to even), in this thread's buffer.
      thread_local std::vector<uint16_t> x_bf16;
      x_bf16.resize(m * s.k);
      for (size_t i = 0; i < m * s.k; ++i) x_bf16[i] = bf16_from_float(x[i]);
      src = memory(
          {{rows, static_cast<memory::dim>(s.k)}, memory::data_type::bf16, memory::format_tag::ab},
          engine, x_bf16.data());
    } else {
      src = memory(
          {{rows, static_cast<memory::dim>(s.k)}, memory::data_type::f32, memory::format_tag::ab},
          engine, const_cast<float*>(x));
    }
    memory dst(y_md, engine, y);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, dst}};
    if (bias != nullptr) {
      args[DNNL_ARG_BIAS] = memory(
          {{1, static_cast<memory::dim>(s.n)}, memory::data_type::f32, memory::format_tag::ab},
          engine, const_cast<float*>(bias));
    }
    s.matmul.execute(stream, args);
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("OneDnnLinear::run_rows: ") + e.what());
  }
}

OneDnnLinear::OneDnnLinear(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnLinear::~OneDnnLinear() = default;

const std::string& OneDnnLinear::impl_name() const { return impl_->impl_name; }
size_t OneDnnLinear::weight_bytes() const { return impl_->weights.get_desc().get_size(); }

Status OneDnnLinear::run(const float* x, float* y, const float* bias) {
  if (impl_->any_rows)
    return Status::error("OneDnnLinear::run: use run_rows() (made with any rows)");
  if ((bias != nullptr) != impl_->with_bias) {
    return Status::error(
        "OneDnnLinear::run: bias given to a matmul created without (or vice versa)");
  }
  try {
    OneDnnThreadScope one_thread(1);
    Impl& s = *impl_;
    dnnl::stream& stream = onednn_thread_stream();
    s.user_x.set_data_handle(const_cast<float*>(x));
    s.y.set_data_handle(y);
    if (s.convert_x) s.x_to_bf16.execute(stream, s.user_x, s.x);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, s.convert_x ? s.x : s.user_x},
                                            {DNNL_ARG_WEIGHTS, s.weights},
                                            {DNNL_ARG_DST, s.y}};
    if (bias != nullptr) {
      s.bias.set_data_handle(const_cast<float*>(bias));
      args[DNNL_ARG_BIAS] = s.bias;
    }
    s.matmul.execute(stream, args);
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("OneDnnLinear::run: ") + e.what());
  }
}

}  // namespace normrt
