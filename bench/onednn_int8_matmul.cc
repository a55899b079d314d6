#include "bench/onednn_int8_matmul.h"

#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/onednn/onednn_dims.h"
#include "kernels/onednn/onednn_engine.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt::bench {
namespace {

using dnnl::memory;

}  // namespace

struct OneDnnInt8Matmul::Impl {
  dnnl::matmul matmul;
  memory x, weights, y, bias;
  std::string impl_name;
};

Expected<std::unique_ptr<OneDnnInt8Matmul>> OneDnnInt8Matmul::create(const int8_t* w_q,
                                                                     const float* scales, size_t n,
                                                                     size_t k, size_t m) {
  try {
    dnnl::engine& engine = onednn_cpu_engine();
    using dt = memory::data_type;
    using tag = memory::format_tag;
    const memory::desc x_md(onednn_dims({m, k}), dt::s8, tag::ab);
    // W (n, k) row-major = Wᵀ "ba"
    const memory::desc user_w_md(onednn_dims({k, n}), dt::s8, tag::ba);
    const memory::desc w_any_md(onednn_dims({k, n}), dt::s8, tag::any);
    const memory::desc bias_md(onednn_dims({1, n}), dt::f32, tag::ab);
    const memory::desc y_md(onednn_dims({m, n}), dt::f32, tag::ab);
    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, std::vector<float>(scales, scales + n));  // per column
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(x_md, w_any_md, bias_md, y_md), attr,
                                    engine);
    auto impl = std::make_unique<Impl>();
    impl->matmul = dnnl::matmul(pd);
    impl->impl_name = pd.impl_info_str();
    // Reorder once into oneDNN's layout (with its s8 × s8 compensation).
    memory user_w(user_w_md, engine, const_cast<int8_t*>(w_q));
    impl->weights = memory(pd.weights_desc(), engine);
    dnnl::stream& stream = onednn_thread_stream();
    dnnl::reorder(user_w, impl->weights).execute(stream, user_w, impl->weights);
    stream.wait();
    impl->x = memory(x_md, engine, DNNL_MEMORY_NONE);
    impl->y = memory(y_md, engine, DNNL_MEMORY_NONE);
    impl->bias = memory(bias_md, engine, DNNL_MEMORY_NONE);
    return std::unique_ptr<OneDnnInt8Matmul>(new OneDnnInt8Matmul(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("oneDNN int8 matmul: ") + e.what());
  }
}

OneDnnInt8Matmul::OneDnnInt8Matmul(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnInt8Matmul::~OneDnnInt8Matmul() = default;

const std::string& OneDnnInt8Matmul::impl_name() const { return impl_->impl_name; }
size_t OneDnnInt8Matmul::weight_bytes() const { return impl_->weights.get_desc().get_size(); }

Status OneDnnInt8Matmul::run(const int8_t* x_q, float* y, const float* bias) {
  try {
    Impl& s = *impl_;
    s.x.set_data_handle(const_cast<int8_t*>(x_q));
    s.y.set_data_handle(y);
    s.bias.set_data_handle(const_cast<float*>(bias));
    dnnl::stream& stream = onednn_thread_stream();
    s.matmul.execute(stream, {{DNNL_ARG_SRC, s.x},
                              {DNNL_ARG_WEIGHTS, s.weights},
                              {DNNL_ARG_BIAS, s.bias},
                              {DNNL_ARG_DST, s.y}});
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("oneDNN int8 matmul run: ") + e.what());
  }
}

}  // namespace normrt::bench
