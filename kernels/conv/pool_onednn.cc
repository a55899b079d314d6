#include "kernels/conv/pool_onednn.h"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "kernels/conv/window_2d.h"
#include "kernels/onednn/onednn_dims.h"
#include "kernels/onednn/onednn_engine.h"
#include "kernels/onednn/onednn_threads.h"

namespace normrt {
namespace {

using dnnl::memory;

dnnl::algorithm pooling_algorithm(PoolKind kind) {
  switch (kind) {
    case PoolKind::kMax:
      return dnnl::algorithm::pooling_max;
    case PoolKind::kAvgIncludePad:
      return dnnl::algorithm::pooling_avg_include_padding;
    case PoolKind::kAvgExcludePad:
      break;
  }
  return dnnl::algorithm::pooling_avg_exclude_padding;
}

}  // namespace

size_t Pool2dShape::out_height() const {
  return window_positions(height, pad_top, pad_bottom, kernel_h, stride_h);
}
size_t Pool2dShape::out_width() const {
  return window_positions(width, pad_left, pad_right, kernel_w, stride_w);
}

Status pool2d_validate_shape(const Pool2dShape& s) {
  const std::initializer_list<NamedSize> sizes = {
      {"batch", s.batch},       {"channels", s.channels}, {"height", s.height},
      {"width", s.width},       {"kernel_h", s.kernel_h}, {"kernel_w", s.kernel_w},
      {"stride_h", s.stride_h}, {"stride_w", s.stride_w}};
  NORMRT_RETURN_IF_ERROR(check_window_sizes("pool2d", sizes));
  if (2 * s.pad_top > s.kernel_h || 2 * s.pad_bottom > s.kernel_h || 2 * s.pad_left > s.kernel_w ||
      2 * s.pad_right > s.kernel_w) {
    return Status::error("pool2d: padding must be at most half the kernel (kernel " +
                         std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + ")");
  }
  if (s.out_height() == 0 || s.out_width() == 0) {
    return Status::error("pool2d: the " + std::to_string(s.kernel_h) + "x" +
                         std::to_string(s.kernel_w) + " window does not fit the padded " +
                         std::to_string(s.height + s.pad_top + s.pad_bottom) + "x" +
                         std::to_string(s.width + s.pad_left + s.pad_right) + " image");
  }
  const long double x = (long double)s.batch * s.channels * s.height * s.width;
  if (x * sizeof(float) >= (long double)std::numeric_limits<int64_t>::max()) {
    return Status::error("pool2d: tensor sizes overflow");
  }
  return Status::ok();
}

struct OneDnnPool2d::Impl {
  Pool2dShape shape;
  size_t threads = 1;
  dnnl::pooling_forward::primitive_desc pd;
  dnnl::pooling_forward pool;
  std::string impl_name;
};

struct OneDnnPool2d::Context::State {
  dnnl::stream stream;
  memory src, dst, scratchpad;
  std::unordered_map<int, memory> args;
};

OneDnnPool2d::Context::Context(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnPool2d::Context::~Context() = default;

Expected<std::unique_ptr<OneDnnPool2d>> OneDnnPool2d::create(const Pool2dShape& shape,
                                                             PoolKind kind, size_t threads) {
  NORMRT_RETURN_IF_ERROR(pool2d_validate_shape(shape));
  try {
    OneDnnThreadScope scope(threads);
    const Pool2dShape& s = shape;
    const auto f32 = memory::data_type::f32;
    const memory::desc src_md(onednn_dims({s.batch, s.channels, s.height, s.width}), f32,
                              memory::format_tag::nchw);
    const memory::desc dst_md(onednn_dims({s.batch, s.channels, s.out_height(), s.out_width()}),
                              f32, memory::format_tag::nchw);
    const dnnl::pooling_forward::desc desc(
        dnnl::prop_kind::forward_inference, pooling_algorithm(kind), src_md, dst_md,
        onednn_dims({s.stride_h, s.stride_w}), onednn_dims({s.kernel_h, s.kernel_w}),
        onednn_dims({s.pad_top, s.pad_left}), onednn_dims({s.pad_bottom, s.pad_right}));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto impl = std::make_unique<Impl>();
    impl->shape = shape;
    impl->threads = threads;
    impl->pd = dnnl::pooling_forward::primitive_desc(desc, attr, onednn_cpu_engine());
    impl->pool = dnnl::pooling_forward(impl->pd);
    impl->impl_name = impl->pd.impl_info_str();
    return std::unique_ptr<OneDnnPool2d>(new OneDnnPool2d(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("pool2d: oneDNN pooling: ") + e.what());
  }
}

OneDnnPool2d::OneDnnPool2d(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnPool2d::~OneDnnPool2d() = default;

Expected<std::unique_ptr<OneDnnPool2d::Context>> OneDnnPool2d::make_context() const {
  try {
    dnnl::engine& engine = onednn_cpu_engine();
    auto state = std::make_unique<Context::State>();
    state->stream = dnnl::stream(engine);
    state->src = memory(impl_->pd.src_desc(), engine, DNNL_MEMORY_NONE);
    state->dst = memory(impl_->pd.dst_desc(), engine, DNNL_MEMORY_NONE);
    state->scratchpad = memory(impl_->pd.scratchpad_desc(), engine);
    state->args = {{DNNL_ARG_SRC, state->src},
                   {DNNL_ARG_DST, state->dst},
                   {DNNL_ARG_SCRATCHPAD, state->scratchpad}};
    return std::unique_ptr<Context>(new Context(std::move(state)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("pool2d: oneDNN context: ") + e.what());
  }
}

Status OneDnnPool2d::run(Context& context, const float* x, float* y) const {
  try {
    OneDnnThreadScope scope(impl_->threads);
    Context::State& s = *context.state_;
    s.src.set_data_handle(const_cast<float*>(x));
    s.dst.set_data_handle(y);
    impl_->pool.execute(s.stream, s.args);
    s.stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("pool2d: ") + e.what());
  }
}

const Pool2dShape& OneDnnPool2d::shape() const { return impl_->shape; }
const std::string& OneDnnPool2d::impl_name() const { return impl_->impl_name; }

}  // namespace normrt
