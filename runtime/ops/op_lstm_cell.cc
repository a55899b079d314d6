// LstmCell: a (layer-normalized) LSTM over the S rows of x, wrapping
// kernels/rnn/ln_lstm.h (LayerNorm paper eqs. 20-22; docs/ops_sequence.md).
//
//   inputs   x [S, D], h0? [1, H], c0? [1, H] (absent: zeros), w_x [4H, D],
//            w_h [4H, H], b? [4H], gain_h? [4H], bias_h? [4H], gain_x? [4H],
//            bias_x? [4H], gain_c? [H], bias_c? [H]   (weights f32 or bf16;
//            gate blocks f, i, o, g)
//   outputs  h_seq [S, H], h_last? [1, H], c_last? [1, H]
//   attrs    the norm attributes (runtime/graph/norm_attributes.h; norm "none", the
//            default, is the plain LSTM), placement "projections_and_cell"
//            (default) | "cell_only" | "none" (where the norm applies; with
//            norm "none" only "none" may be given), reverse 0/1
//
// reverse = 1 consumes x[S−1], ..., x[0]: h_seq[t] is the state after x[t..S−1]
// (aligned with x, as the backward half of a bidirectional encoder) and
// h_last = h_seq[0]. Aliasing: h_last may be h0 and c_last may be c0 (the very
// same buffers); nothing else may overlap.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/rnn/ln_lstm.h"
#include "runtime/graph/norm_attributes.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/rnn_op_cell.h"
#include "runtime/ops/rnn_op_operands.h"
#include "runtime/ops/rnn_op_sequence.h"
#include "runtime/ops/rnn_op_weights.h"

namespace normrt {
namespace {

using seq_op::NodeChecker;

enum Input : size_t { kX, kH0, kC0, kWx, kWh, kB, kGainH, kBiasH, kGainX, kBiasX, kGainC, kBiasC };
enum Output : size_t { kHSeq, kHLast, kCLast };

struct LstmConfig {
  seq_op::CellSequence sequence;
  LstmNormPlacement placement = LstmNormPlacement::kProjectionsAndCell;
  NormParams norm;
};
using LstmSession = seq_op::CellSession<LnLstmWorkspace>;

Expected<LstmNormPlacement> parse_placement(const NodeChecker& c, bool norm_enabled) {
  NORMRT_ASSIGN_OR_RETURN(size_t placement,
                          c.choice("placement", 0, {"projections_and_cell", "cell_only", "none"}));
  if (!norm_enabled) {
    if (c.node().find_attribute("placement") != nullptr && placement != 2) {
      return c.error("norm 'none' contradicts placement '" +
                     std::string(placement == 0 ? "projections_and_cell" : "cell_only") + "'");
    }
    return LstmNormPlacement::kNone;
  }
  return placement == 0   ? LstmNormPlacement::kProjectionsAndCell
         : placement == 1 ? LstmNormPlacement::kCellOnly
                          : LstmNormPlacement::kNone;
}

Status check_lstm(const Graph& graph, const Node& node, LstmConfig& config) {
  const NodeChecker c(graph, node);
  NORMRT_RETURN_IF_ERROR(c.check_attribute_names(
      {"placement", "norm", "eps", "eps_placement", "gain_convention", "p", "reverse"}));
  seq_op::CellSequence& sequence = config.sequence;
  NORMRT_RETURN_IF_ERROR(seq_op::check_cell_sequence(graph, c, kX, kWh, "w_h", sequence));
  const auto hidden = static_cast<int64_t>(sequence.hidden);
  const int64_t input = sequence.input, gates = 4 * hidden;
  NORMRT_ASSIGN_OR_RETURN(const Tensor* w_h, c.input(kWh, "w_h"));
  NORMRT_RETURN_IF_ERROR(seq_op::check_weight(c, *w_h, "w_h (4H · H)", {gates, hidden}));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* w_x, c.input(kWx, "w_x"));
  NORMRT_RETURN_IF_ERROR(seq_op::check_weight(c, *w_x, "w_x (4H · D, D from x)", {gates, input}));
  for (auto [index, what] : {std::pair{kH0, "h0"}, {kC0, "c0"}}) {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* state, c.optional_input(index, what));
    if (state == nullptr) continue;
    NORMRT_RETURN_IF_ERROR(seq_op::check_state_vector(c, *state, what, hidden));
  }
  for (auto [index, what] : {std::pair{kB, "b"},
                             {kGainH, "gain_h"},
                             {kBiasH, "bias_h"},
                             {kGainX, "gain_x"},
                             {kBiasX, "bias_x"}}) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_optional_weight(c, index, what, {gates}));
  }
  for (auto [index, what] : {std::pair{kGainC, "gain_c"}, {kBiasC, "bias_c"}}) {
    NORMRT_RETURN_IF_ERROR(seq_op::check_optional_weight(c, index, what, {hidden}));
  }
  NORMRT_ASSIGN_OR_RETURN(WeightType type,
                          seq_op::matrices_weight_type(c, {kWx, kWh}, {"w_x", "w_h"}));
  sequence.type = type;

  NORMRT_ASSIGN_OR_RETURN(NormSelection norm, norm_selection_from_attributes(node));
  NORMRT_ASSIGN_OR_RETURN(LstmNormPlacement placement, parse_placement(c, norm.enabled));
  config.placement = placement;
  config.norm = norm.params;
  return Status::ok();
}

Status infer_lstm(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  LstmConfig config;
  NORMRT_RETURN_IF_ERROR(check_lstm(graph, node, config));
  seq_op::infer_cell_outputs(node, config.sequence, outputs);
  return Status::ok();
}

class LstmKernel final : public OpKernel {
 public:
  LstmKernel(std::string node_name, LnLstmCell cell, const LstmConfig& config)
      : node_name_(std::move(node_name)), cell_(std::move(cell)), config_(config) {}

  std::unique_ptr<OpSessionState> create_session_state() const override {
    return std::make_unique<LstmSession>(cell_, config_.sequence.chunk_steps);
  }

  Status run(const OpRunContext& context) const override {
    NORMRT_ASSIGN_OR_RETURN(LnLstmWorkspace * workspace, seq_op::cell_workspace<LnLstmWorkspace>(
                                                             context, node_name_, "LstmCell"));
    LnLstmWorkspace& ws = *workspace;
    const TensorView* in = context.inputs;
    const size_t hidden = config_.sequence.hidden, input = cell_.input_size();
    const auto optional = [](const TensorView* views, size_t count, size_t index) -> float* {
      return index < count && views[index].present() ? views[index].f32() : nullptr;
    };
    const float* x = in[kX].f32();
    const float* h0 = optional(in, context.input_count, kH0);
    const float* c0 = optional(in, context.input_count, kC0);
    float* h_seq = context.outputs[kHSeq].f32();
    float* h_last = optional(context.outputs, context.output_count, kHLast);
    float* c_last = optional(context.outputs, context.output_count, kCLast);

    // c_t is updated in place in c_last (or the workspace), starting from c0.
    float* c = c_last != nullptr ? c_last : ws.cell();
    if (c0 == nullptr) c0 = ws.zeros();
    if (c != c0) std::copy(c0, c0 + hidden, c);
    const float* h_prev = h0 != nullptr ? h0 : ws.zeros();
    float* xproj = ws.xproj();
    NORMRT_RETURN_IF_ERROR(seq_op::for_each_step(
        in[kX].rows(), ws.chunk_steps(), config_.sequence.reverse,
        [&](size_t first, size_t rows) {
          return ln_lstm_project_inputs(cell_, x + first * input, rows, xproj, context.pool);
        },
        [&](size_t t, size_t chunk_row) {
          float* h = h_seq + t * hidden;
          Status step = ln_lstm_step(cell_, xproj + chunk_row * 4 * hidden, h_prev, c, h, c, ws,
                                     context.pool);
          h_prev = h;
          return step;
        }));
    if (h_last != nullptr) std::copy(h_prev, h_prev + hidden, h_last);
    return Status::ok();
  }

 private:
  std::string node_name_;
  LnLstmCell cell_;
  LstmConfig config_;
};

Expected<std::unique_ptr<OpKernel>> create_lstm(const OpBuildContext& context) {
  LstmConfig config;
  NORMRT_RETURN_IF_ERROR(check_lstm(context.graph, context.node, config));
  const NodeChecker c(context.graph, context.node);
  NORMRT_ASSIGN_OR_RETURN(
      std::vector<std::vector<float>> read,
      seq_op::read_cell_weights(c, kWx,
                                {"x", "h0", "c0", "w_x", "w_h", "b", "gain_h", "bias_h", "gain_x",
                                 "bias_x", "gain_c", "bias_c"}));
  const std::vector<std::vector<float>>& values = read;
  LnLstmWeights w;
  w.input_size = static_cast<size_t>(config.sequence.input);
  w.hidden_size = config.sequence.hidden;
  w.w_x = values[kWx].data();
  w.w_h = values[kWh].data();
  w.b = seq_op::data_or_null(values[kB]);
  w.placement = config.placement;
  w.norm = config.norm;
  w.gain_h = seq_op::data_or_null(values[kGainH]);
  w.bias_h = seq_op::data_or_null(values[kBiasH]);
  w.gain_x = seq_op::data_or_null(values[kGainX]);
  w.bias_x = seq_op::data_or_null(values[kBiasX]);
  w.gain_c = seq_op::data_or_null(values[kGainC]);
  w.bias_c = seq_op::data_or_null(values[kBiasC]);
  // bf16 matrices were widened exactly; kBF16 rounds them back to the same bits.
  Expected<LnLstmCell> cell = make_ln_lstm_cell(w, config.sequence.type, context.isa);
  if (!cell) return c.error(cell.status().message());
  return std::unique_ptr<OpKernel>(
      new LstmKernel(context.node.name, std::move(cell).value(), config));
}

}  // namespace

const OpSchema kLstmCellSchema = {OpType::kLstmCell, "LstmCell", 5, 12, 1, 3,
                                  infer_lstm,        create_lstm};

}  // namespace normrt
