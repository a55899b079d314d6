// GruCellBa: a (layer-normalized) GRU over the S rows of x, wrapping
// kernels/rnn/ln_gru.h (LayerNorm paper eqs. 26-28; docs/ops_sequence.md).
//
//   inputs   x [S, D], h0? [1, H] (absent: zeros), w_x [2H, D], w_h [2H, H],
//            w [H, D], u [H, H], gain_h? [2H], bias_h? [2H], gain_x? [2H],
//            bias_x? [2H], gain_w? [H], bias_w? [H], gain_u? [H], bias_u? [H]
//            (weights f32 or bf16; gate blocks z, r)
//   outputs  h_seq [S, H], h_last? [1, H]
//   attrs    the norm attributes (runtime/graph/norm_attributes.h; "none": the plain
//            GRU, β's as biases, no gains), reverse 0/1
//
// reverse = 1 consumes x[S−1], ..., x[0]: h_seq[t] is the state after x[t..S−1]
// and h_last = h_seq[0]. Aliasing: h_last may be h0 (the very same buffer);
// nothing else may overlap.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/rnn/ln_gru.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/rnn_op_cell.h"
#include "runtime/ops/rnn_op_operands.h"
#include "runtime/ops/rnn_op_sequence.h"
#include "runtime/ops/rnn_op_weights.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum Input : size_t {
  kX,
  kH0,
  kWx,
  kWh,
  kW,
  kU,
  kGainH,
  kBiasH,
  kGainX,
  kBiasX,
  kGainW,
  kBiasW,
  kGainU,
  kBiasU
};
enum Output : size_t { kHSeq, kHLast };

struct GruConfig {
  seq_op::CellSequence sequence;
  NormSelection norm;
};
using GruSession = seq_op::CellSession<LnGruWorkspace>;

Status check_gru(const Graph& graph, const Node& node, GruConfig& config) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(
      c.check_attribute_names({"norm", "eps", "eps_placement", "gain_convention", "p", "reverse"}));
  seq_op::CellSequence& sequence = config.sequence;
  NORMRT_RETURN_IF_ERROR(seq_op::check_cell_sequence(graph, c, kX, kU, "u", sequence));
  const auto hidden = static_cast<int64_t>(sequence.hidden);
  const int64_t input = sequence.input, gates = 2 * hidden;
  const struct {
    Input index;
    const char* what;
    Shape shape;
  } matrices[] = {{kWx, "w_x (2H · D, D from x)", {gates, input}},
                  {kWh, "w_h (2H · H)", {gates, hidden}},
                  {kW, "w (H · D)", {hidden, input}},
                  {kU, "u (H · H)", {hidden, hidden}}};
  for (const auto& m : matrices) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* tensor, c.input(m.index, m.what));
    NORMRT_RETURN_IF_ERROR(seq_op::check_weight(c, *tensor, m.what, m.shape));
  }
  NORMRT_ASSIGN_OR_RETURN(const Tensor* h0, c.optional_input(kH0, "h0"));
  if (h0 != nullptr) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_state_vector(c, *h0, "h0", hidden));
  }
  for (auto [index, what] :
       {std::pair{kGainH, "gain_h"}, {kBiasH, "bias_h"}, {kGainX, "gain_x"}, {kBiasX, "bias_x"}}) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_optional_weight(c, index, what, {gates}));
  }
  for (auto [index, what] :
       {std::pair{kGainW, "gain_w"}, {kBiasW, "bias_w"}, {kGainU, "gain_u"}, {kBiasU, "bias_u"}}) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_optional_weight(c, index, what, {hidden}));
  }
  NORMRT_ASSIGN_OR_RETURN(WeightType type, seq_op::matrices_weight_type(c, {kWx, kWh, kW, kU},
                                                                        {"w_x", "w_h", "w", "u"}));
  sequence.type = type;
  NORMRT_ASSIGN_OR_RETURN(NormSelection norm, norm_selection_from_attributes(node));
  config.norm = norm;
  return Status::ok();
}

Status infer_gru(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  GruConfig config;
  NORMRT_RETURN_IF_ERROR(check_gru(graph, node, config));
  seq_op::infer_cell_outputs(node, config.sequence, outputs);
  return Status::ok();
}

class GruKernel final : public OpKernel {
 public:
  GruKernel(std::string node_name, LnGruCell cell, const GruConfig& config)
      : node_name_(std::move(node_name)), cell_(std::move(cell)), config_(config) {}

  std::unique_ptr<OpSessionState> create_session_state() const override {
    return std::make_unique<GruSession>(cell_, config_.sequence.chunk_steps);
  }

  Status run(const OpRunContext& context) const override {
    NORMRT_ASSIGN_OR_RETURN(LnGruWorkspace * workspace, seq_op::cell_workspace<LnGruWorkspace>(
                                                            context, node_name_, "GruCellBa"));
    LnGruWorkspace& ws = *workspace;
    const TensorView* in = context.inputs;
    const size_t hidden = config_.sequence.hidden, input = cell_.input_size();
    const float* x = in[kX].f32();
    const bool has_h0 = context.input_count > kH0 && in[kH0].present();
    const bool has_h_last = context.output_count > kHLast && context.outputs[kHLast].present();
    float* h_seq = context.outputs[kHSeq].f32();
    const float* h_prev = has_h0 ? in[kH0].f32() : ws.zeros();
    float* xproj = ws.xproj();
    NORMRT_RETURN_IF_ERROR(seq_op::for_each_step(
        in[kX].rows(), ws.chunk_steps(), config_.sequence.reverse,
        [&](size_t first, size_t rows) {
          return ln_gru_project_inputs(cell_, x + first * input, rows, xproj, context.pool);
        },
        [&](size_t t, size_t chunk_row) {
          float* h = h_seq + t * hidden;
          Status step =
              ln_gru_step(cell_, xproj + chunk_row * 3 * hidden, h_prev, h, ws, context.pool);
          h_prev = h;
          return step;
        }));
    if (has_h_last) std::copy(h_prev, h_prev + hidden, context.outputs[kHLast].f32());
    return Status::ok();
  }

 private:
  std::string node_name_;
  LnGruCell cell_;
  GruConfig config_;
};

Expected<std::unique_ptr<OpKernel>> create_gru(const OpBuildContext& context) {
  GruConfig config;
  NORMRT_RETURN_IF_ERROR(check_gru(context.graph, context.node, config));
  const NodeChecker c(context.graph, context.node);
  NORMRT_ASSIGN_OR_RETURN(
      std::vector<std::vector<float>> read,
      seq_op::read_cell_weights(c, kWx,
                                {"x", "h0", "w_x", "w_h", "w", "u", "gain_h", "bias_h", "gain_x",
                                 "bias_x", "gain_w", "bias_w", "gain_u", "bias_u"}));
  const std::vector<std::vector<float>>& values = read;
  LnGruWeights w;
  w.input_size = static_cast<size_t>(config.sequence.input);
  w.hidden_size = config.sequence.hidden;
  w.w_x = values[kWx].data();
  w.w_h = values[kWh].data();
  w.w = values[kW].data();
  w.u = values[kU].data();
  w.normalize = config.norm.enabled;
  w.norm = config.norm.params;
  w.gain_h = seq_op::data_or_null(values[kGainH]);
  w.bias_h = seq_op::data_or_null(values[kBiasH]);
  w.gain_x = seq_op::data_or_null(values[kGainX]);
  w.bias_x = seq_op::data_or_null(values[kBiasX]);
  w.gain_w = seq_op::data_or_null(values[kGainW]);
  w.bias_w = seq_op::data_or_null(values[kBiasW]);
  w.gain_u = seq_op::data_or_null(values[kGainU]);
  w.bias_u = seq_op::data_or_null(values[kBiasU]);
  // bf16 matrices were widened exactly; kBF16 rounds them back to the same bits.
  Expected<LnGruCell> cell = make_ln_gru_cell(w, config.sequence.type, context.isa);
  if (!cell) return c.error(cell.status().message());
  return std::unique_ptr<OpKernel>(
      new GruKernel(context.node.name, std::move(cell).value(), config));
}

}  // namespace

const OpSchema kGruCellBaSchema = {OpType::kGruCellBa, "GruCellBa", 6, 14, 1, 2,
                                   infer_gru,          create_gru};

}  // namespace normrt
