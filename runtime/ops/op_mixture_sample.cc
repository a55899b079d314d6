// MixtureSample: draws the next pen offset from the handwriting model's
// mixture (Graves 2013, section 4.2) with a counter-based generator, so
// that a session's samples depend only on the seed and the step number.
//
//   inputs   params [1, 1 + 6M] f32 (MixtureDensity's layout), step i32 [1]
//            (the number of points drawn before: a state tensor the graph
//            feeds back from step_next)
//   outputs  point [1, 3] f32 (x1, x2, end of stroke ∈ {0, 1}),
//            step_next? i32 [1] = step + 1
//   attrs    components = M ≥ 1 (required), seed (int, default 0; its 64
//            bits are the generator's seed)
//
// The draw is mixture_sampler::sample_point (mixture_sampler.h specifies it
// operation by operation). A negative step, or one at INT32_MAX, is a run
// error. Aliasing: step_next may be step; point must not overlap params.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "runtime/ops/mixture_sampler.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

struct SampleConfig {
  size_t components = 0;
  uint64_t seed = 0;
};

Expected<SampleConfig> check_mixture_sample(const Graph& graph, const Node& node,
                                            std::vector<InferredTensor>* outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"components", "seed"}));
  NORMRT_ASSIGN_OR_RETURN(int64_t m, node.int_attribute("components", 0));
  if (m < 1 || m > (int64_t{1} << 20))
    return node_error(
        node, "attribute 'components' (M) must be in [1, 2^20], found " + std::to_string(m));
  NORMRT_ASSIGN_OR_RETURN(int64_t seed, node.int_attribute("seed", 0));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* params, required_input(graph, node, 0, "params"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "params", *params, {DataType::kF32}));
  if (params->shape != Shape{1, 1 + 6 * m}) {
    return node_error(node, "operand 0 (params) '" + params->name + "' must be [1, 1 + 6M] = [1, " +
                                std::to_string(1 + 6 * m) + "] (one step) for M = " +
                                std::to_string(m) + ", found " + shape_string(params->shape));
  }
  NORMRT_ASSIGN_OR_RETURN(const Tensor* step, required_input(graph, node, 1, "step"));
  NORMRT_RETURN_IF_ERROR(check_dtype(node, 1, "step", *step, {DataType::kI32}));
  NORMRT_RETURN_IF_ERROR(check_shape(node, 1, "step", *step, {1}));
  if (outputs != nullptr) {
    *outputs = {{DataType::kF32, {1, 3}}, {DataType::kI32, {1}}};
    outputs->resize(node.outputs.size());
  }
  return SampleConfig{static_cast<size_t>(m), static_cast<uint64_t>(seed)};
}

Status infer_mixture_sample(const Graph& graph, const Node& node,
                            std::vector<InferredTensor>& outputs) {
  return check_mixture_sample(graph, node, &outputs).status();
}

class MixtureSampleOp final : public OpKernel {
 public:
  MixtureSampleOp(SampleConfig config, std::string label)
      : config_(config), label_(std::move(label)) {}

  Status run(const OpRunContext& context) const override {
    const int32_t step = context.inputs[1].i32()[0];
    if (step < 0 || step == std::numeric_limits<int32_t>::max())
      return Status::error(label_ + ": step " + std::to_string(step) +
                           " is outside [0, 2^31 - 1): reset the session");
    mixture_sampler::sample_point(context.inputs[0].f32(), config_.components, config_.seed,
                                  static_cast<uint64_t>(step), context.outputs[0].f32());
    if (context.output_count > 1 && context.outputs[1].present())
      context.outputs[1].i32()[0] = step + 1;
    return Status::ok();
  }

 private:
  SampleConfig config_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_mixture_sample(const OpBuildContext& context) {
  NORMRT_ASSIGN_OR_RETURN(SampleConfig config,
                          check_mixture_sample(context.graph, context.node, nullptr));
  return std::unique_ptr<OpKernel>(new MixtureSampleOp(config, node_label(context.node)));
}

}  // namespace

const OpSchema kMixtureSampleSchema = {OpType::kMixtureSample, "MixtureSample",      2, 2, 1, 2,
                                       infer_mixture_sample,   create_mixture_sample};

}  // namespace normrt
