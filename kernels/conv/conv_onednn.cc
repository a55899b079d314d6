#include "kernels/conv/conv_onednn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "kernels/conv/window_2d.h"
#include "kernels/onednn/onednn_dims.h"
#include "kernels/onednn/onednn_engine.h"
#include "kernels/onednn/onednn_threads.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace normrt {
namespace {

using dnnl::memory;
using Args = std::unordered_map<int, memory>;

}  // namespace

size_t Conv2dShape::out_height() const {
  return window_positions(height, pad_top, pad_bottom, kernel_h, stride_h);
}
size_t Conv2dShape::out_width() const {
  return window_positions(width, pad_left, pad_right, kernel_w, stride_w);
}

Status conv2d_validate_shape(const Conv2dShape& s) {
  const std::initializer_list<NamedSize> sizes = {
      {"batch", s.batch},       {"in_channels", s.in_channels},   {"height", s.height},
      {"width", s.width},       {"out_channels", s.out_channels}, {"kernel_h", s.kernel_h},
      {"kernel_w", s.kernel_w}, {"stride_h", s.stride_h},         {"stride_w", s.stride_w}};
  NORMRT_RETURN_IF_ERROR(check_window_sizes("conv2d", sizes));
  // Padding may be 0, so it has the limit without the "at least 1".
  for (size_t pad : {s.pad_top, s.pad_left, s.pad_bottom, s.pad_right}) {
    if (pad >= kWindowSizeLimit) return Status::error("conv2d: padding is too large");
  }
  if (s.pad_top >= s.kernel_h || s.pad_bottom >= s.kernel_h || s.pad_left >= s.kernel_w ||
      s.pad_right >= s.kernel_w) {
    // A window entirely in the padding reads only zeros: PyTorch allows pad
    // up to kernel / 2; oneDNN rejects some larger pads. Keep to the common rule.
    return Status::error(
        "conv2d: padding must be smaller than the kernel (pad " +
        std::to_string(std::max({s.pad_top, s.pad_bottom, s.pad_left, s.pad_right})) + ", kernel " +
        std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + ")");
  }
  if (s.out_height() == 0 || s.out_width() == 0) {
    return Status::error("conv2d: the " + std::to_string(s.kernel_h) + "x" +
                         std::to_string(s.kernel_w) + " kernel does not fit the padded " +
                         std::to_string(s.height + s.pad_top + s.pad_bottom) + "x" +
                         std::to_string(s.width + s.pad_left + s.pad_right) + " image");
  }
  // Every tensor's element count must fit (and its bytes fit size_t).
  const long double x = (long double)s.batch * s.in_channels * s.height * s.width;
  const long double y = (long double)s.batch * s.out_channels * s.out_height() * s.out_width();
  const long double w = (long double)s.out_channels * s.in_channels * s.kernel_h * s.kernel_w;
  if (std::max({x, y, w}) * sizeof(float) >= (long double)std::numeric_limits<int64_t>::max()) {
    return Status::error("conv2d: tensor sizes overflow");
  }
  return Status::ok();
}

struct OneDnnConv2d::Impl {
  Conv2dShape shape;
  Conv2dOptions options;
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory::desc user_src_md, user_dst_md, bias_md;
  memory weights;  // packed, owned
  bool reorder_src = false, reorder_dst = false;
  std::string impl_name;
  ActivationKernel activation = nullptr;  // normrt's, after the primitive; null: none
};

struct OneDnnConv2d::Context::State {
  dnnl::stream stream;
  memory user_src, user_dst, bias;  // the caller's buffers, handles set per run
  memory src, dst;                  // the primitive's layout (owned) when it differs
  memory scratchpad;                // owned
  dnnl::reorder to_blocked, from_blocked;
  Args conv_args, to_blocked_args, from_blocked_args;
};

OneDnnConv2d::Context::Context(std::unique_ptr<State> state) : state_(std::move(state)) {}
OneDnnConv2d::Context::~Context() = default;

Expected<std::unique_ptr<OneDnnConv2d>> OneDnnConv2d::create(const Conv2dShape& shape,
                                                             const float* weights,
                                                             const Conv2dOptions& options) {
  NORMRT_RETURN_IF_ERROR(conv2d_validate_shape(shape));
  if (weights == nullptr) return Status::error("conv2d: weights are null");
  const Activation act = options.activation;
  if (std::string(activation_name(act)) == "invalid") {
    return Status::error("conv2d: invalid activation value " +
                         std::to_string(static_cast<int>(act)));
  }
  if (activation_uses_alpha(act) && !std::isfinite(options.alpha)) {
    return Status::error(std::string("conv2d: ") + activation_name(act) +
                         "'s alpha must be finite");
  }
  try {
    OneDnnThreadScope threads(options.threads);
    dnnl::engine& engine = onednn_cpu_engine();
    const auto f32 = memory::data_type::f32;
    using tag = memory::format_tag;
    const Conv2dShape& s = shape;
    auto impl = std::make_unique<Impl>();
    impl->shape = shape;
    impl->options = options;
    impl->user_src_md =
        memory::desc(onednn_dims({s.batch, s.in_channels, s.height, s.width}), f32, tag::nchw);
    impl->user_dst_md = memory::desc(
        onednn_dims({s.batch, s.out_channels, s.out_height(), s.out_width()}), f32, tag::nchw);
    impl->bias_md = memory::desc(onednn_dims({s.out_channels}), f32, tag::x);
    const tag activation_tag = options.blocked ? tag::any : tag::nchw;
    const memory::desc src_md(impl->user_src_md.dims(), f32, activation_tag);
    const memory::desc dst_md(impl->user_dst_md.dims(), f32, activation_tag);
    const memory::desc weights_md(
        onednn_dims({s.out_channels, s.in_channels, s.kernel_h, s.kernel_w}), f32, tag::any);
    const memory::dims strides = onednn_dims({s.stride_h, s.stride_w});
    const memory::dims pad_l = onednn_dims({s.pad_top, s.pad_left});
    const memory::dims pad_r = onednn_dims({s.pad_bottom, s.pad_right});
    const auto kind = dnnl::prop_kind::forward_inference;
    auto desc_for = [&](dnnl::algorithm algorithm) {
      return options.with_bias
                 ? dnnl::convolution_forward::desc(kind, algorithm, src_md, weights_md,
                                                   impl->bias_md, dst_md, strides, pad_l, pad_r)
                 : dnnl::convolution_forward::desc(kind, algorithm, src_md, weights_md, dst_md,
                                                   strides, pad_l, pad_r);
    };
    // No eltwise post-op: the activation runs after the primitive, by
    // normrt's kernel. oneDNN 2.6's Winograd takes no post-op, and its gemm
    // convolution (the NCHW first layer) measured 11x slower with one in the
    // network (0.47 ms instead of 0.04 ms), against ~2% of a layer for the
    // separate sweep over y.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    bool made = false;
    if (options.algorithm == ConvAlgorithm::kWinograd) {
      // Only oneDNN's F(4×4, 3×3) kernel: its F(2×2, 3×3) kernel (small
      // images, few channels) measured slower than direct on every
      // ConvPool-CNN-C layer it takes (docs/cnn.md). oneDNN refuses (throws)
      // where it has no Winograd kernel for the shape.
      try {
        impl->pd = dnnl::convolution_forward::primitive_desc(
            desc_for(dnnl::algorithm::convolution_winograd), attr, engine);
        made = std::string(impl->pd.impl_info_str()).find("wino_4x3") != std::string::npos;
      } catch (const dnnl::error&) {
      }
    }
    if (!made) {
      impl->pd = dnnl::convolution_forward::primitive_desc(
          desc_for(dnnl::algorithm::convolution_direct), attr, engine);
    }
    if (act != Activation::kNone) {
      NORMRT_ASSIGN_OR_RETURN(ActivationKernel kernel, selected_activation_kernel());
      impl->activation = kernel;
    }
    impl->conv = dnnl::convolution_forward(impl->pd);
    impl->impl_name = impl->pd.impl_info_str();
    impl->reorder_src = impl->pd.src_desc() != impl->user_src_md;
    impl->reorder_dst = impl->pd.dst_desc() != impl->user_dst_md;

    // Pack the weights once, from OIHW into the primitive's layout.
    const memory::desc user_w_md(weights_md.dims(), f32, tag::oihw);
    memory user_w(user_w_md, engine, const_cast<float*>(weights));
    impl->weights = memory(impl->pd.weights_desc(), engine);
    dnnl::stream stream(engine);
    dnnl::reorder(user_w, impl->weights).execute(stream, user_w, impl->weights);
    stream.wait();
    return std::unique_ptr<OneDnnConv2d>(new OneDnnConv2d(std::move(impl)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("conv2d: oneDNN convolution: ") + e.what());
  }
}

OneDnnConv2d::OneDnnConv2d(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OneDnnConv2d::~OneDnnConv2d() = default;

Expected<std::unique_ptr<OneDnnConv2d::Context>> OneDnnConv2d::make_context() const {
  try {
    OneDnnThreadScope threads(impl_->options.threads);
    dnnl::engine& engine = onednn_cpu_engine();
    const Impl& m = *impl_;
    auto state = std::make_unique<Context::State>();
    state->stream = dnnl::stream(engine);
    state->user_src = memory(m.user_src_md, engine, DNNL_MEMORY_NONE);
    state->user_dst = memory(m.user_dst_md, engine, DNNL_MEMORY_NONE);
    state->src = m.reorder_src ? memory(m.pd.src_desc(), engine) : state->user_src;
    state->dst = m.reorder_dst ? memory(m.pd.dst_desc(), engine) : state->user_dst;
    state->scratchpad = memory(m.pd.scratchpad_desc(), engine);
    state->conv_args = {{DNNL_ARG_SRC, state->src},
                        {DNNL_ARG_WEIGHTS, m.weights},
                        {DNNL_ARG_DST, state->dst},
                        {DNNL_ARG_SCRATCHPAD, state->scratchpad}};
    if (m.options.with_bias) {
      state->bias = memory(m.bias_md, engine, DNNL_MEMORY_NONE);
      state->conv_args[DNNL_ARG_BIAS] = state->bias;
    }
    if (m.reorder_src) {
      state->to_blocked = dnnl::reorder(state->user_src, state->src);
      state->to_blocked_args = {{DNNL_ARG_FROM, state->user_src}, {DNNL_ARG_TO, state->src}};
    }
    if (m.reorder_dst) {
      state->from_blocked = dnnl::reorder(state->dst, state->user_dst);
      state->from_blocked_args = {{DNNL_ARG_FROM, state->dst}, {DNNL_ARG_TO, state->user_dst}};
    }
    return std::unique_ptr<Context>(new Context(std::move(state)));
  } catch (const dnnl::error& e) {
    return Status::error(std::string("conv2d: oneDNN context: ") + e.what());
  }
}

Status OneDnnConv2d::run(Context& context, const float* x, const float* bias, float* y) const {
  const Impl& m = *impl_;
  if ((bias != nullptr) != m.options.with_bias) {
    return Status::error("conv2d: bias given to a convolution created without one (or vice versa)");
  }
  try {
    OneDnnThreadScope threads(m.options.threads);
    Context::State& s = *context.state_;
    s.user_src.set_data_handle(const_cast<float*>(x));
    s.user_dst.set_data_handle(y);
    if (bias != nullptr) s.bias.set_data_handle(const_cast<float*>(bias));
    if (m.reorder_src) s.to_blocked.execute(s.stream, s.to_blocked_args);
    m.conv.execute(s.stream, s.conv_args);
    if (m.reorder_dst) s.from_blocked.execute(s.stream, s.from_blocked_args);
    s.stream.wait();
    if (m.activation != nullptr) {
      const Conv2dShape& sh = m.shape;
      m.activation(m.options.activation, m.options.alpha, y, y,
                   sh.batch * sh.out_channels * sh.out_height() * sh.out_width());
    }
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(std::string("conv2d: ") + e.what());
  }
}

const Conv2dShape& OneDnnConv2d::shape() const { return impl_->shape; }
const Conv2dOptions& OneDnnConv2d::options() const { return impl_->options; }
const std::string& OneDnnConv2d::impl_name() const { return impl_->impl_name; }
size_t OneDnnConv2d::weight_bytes() const { return impl_->weights.get_desc().get_size(); }
size_t OneDnnConv2d::context_bytes() const {
  const Impl& m = *impl_;
  return (m.reorder_src ? m.pd.src_desc().get_size() : 0) +
         (m.reorder_dst ? m.pd.dst_desc().get_size() : 0) + m.pd.scratchpad_desc().get_size();
}

}  // namespace normrt
