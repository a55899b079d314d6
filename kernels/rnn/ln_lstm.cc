// The LN-LSTM cell: preparation, argument checks, and the step as fused
// linear calls and the per-ISA element-wise passes (see ln_lstm.h).

#include "kernels/rnn/ln_lstm.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/linear/fused_linear.h"
#include "kernels/norm/norm_row_ops.h"
#include "kernels/norm/norm_statistics.h"
#include "kernels/norm/norm_variants.h"
#include "kernels/rnn/rnn_common.h"
#include "kernels/rnn/rnn_gates.h"

namespace normrt {

using detail::Operand;
using detail::PreparedNorm;

struct LnLstmCell::Impl {
  size_t input = 0, hidden = 0;  // D, H
  WeightType type = WeightType::kF32;
  Isa isa = Isa::kScalar;
  LstmNormPlacement placement = LstmNormPlacement::kProjectionsAndCell;
  NormParams norm;      // as given
  PackedWeights w_x;    // (4H, D)
  PackedWeights w_h;    // (4H, H)
  PreparedNorm norm_h;  // N(W_h·h; α1, β1)
  PreparedNorm norm_x;  // N(W_x·x; α2, β2 + b)
  PreparedNorm norm_c;  // N(c; α3, β3)
  const detail::NormRowOps* row_ops = nullptr;
  const detail::RnnGateOps* gate_ops = nullptr;
};

namespace {

constexpr const char* kCell = "ln_lstm";

std::string num(size_t value) { return std::to_string(value); }

Status check_cell(const LnLstmCell& cell) {
  if (cell.empty())
    return Status::error("ln_lstm: the cell is empty (not made by make_ln_lstm_cell)");
  return Status::ok();
}

// c_t's normalization from the sums of the gate pass: the statistic, a
// second sweep around the mean if Σc² − (Σc)²/H lost precision (as the norm
// kernels), and the double reference if the float sums left their safe range.
void normalize_cell(const LnLstmCell::Impl& cell, const detail::CellSums& sums, const float* c,
                    float* h, LnLstmWorkspace& ws) {
  const PreparedNorm& n = cell.norm_c;
  const size_t hidden = cell.hidden;
  detail::NormScale map;
  bool safe;
  if (n.params.kind == NormKind::kLayerNorm) {
    detail::Moments m = detail::moments_from_deviations(hidden, 0.0, sums.sum, sums.sum_sq);
    if (std::isfinite(sums.sum) && detail::shift_was_poor(m, 0.0)) {
      const float shift = static_cast<float>(m.mean);
      double dev = 0.0, dev_sq = 0.0;
      cell.row_ops->sum_deviations(c, nullptr, nullptr, hidden, shift, &dev, &dev_sq);
      m = detail::moments_from_deviations(hidden, shift, dev, dev_sq);
    }
    safe = m.safe;
    map = detail::norm_scale(n.params, m.mean, m.m2 / m.count);
  } else {
    const size_t count = n.stat_count();
    safe = detail::sum_is_safe(sums.sum_sq);
    map = detail::norm_scale(n.params, 0.0, sums.sum_sq / static_cast<double>(count));
  }
  if (safe) {
    cell.gate_ops->lstm_output(c, h, hidden, map, n.gain_or_null(), n.bias_or_null());
    return;
  }
  detail::norm_row_reference(n.params, hidden, n.stat_count(), c, nullptr, nullptr,
                             n.gain_or_null(), n.bias_or_null(), ws.normalized());
  cell.gate_ops->lstm_output(ws.normalized(), h, hidden, detail::NormScale{}, nullptr, nullptr);
}

// The step after validation.
Status run_step(const LnLstmCell::Impl& cell, const float* xproj_t, const float* h_prev,
                const float* c_prev, float* h, float* c, LnLstmWorkspace& ws, ThreadPool* pool) {
  Status s = fused_linear(cell.w_h, h_prev, 1, cell.hidden, cell.norm_h.epilogue(), ws.hproj(),
                          4 * cell.hidden, pool);
  if (!s) return Status::error(std::string(kCell) + ": W_h·h_{t-1}: " + s.message());
  detail::LstmGateArgs args;
  args.hidden = cell.hidden;
  args.hproj = ws.hproj();
  args.xproj = xproj_t;
  args.c_prev = c_prev;
  args.c = c;
  args.h = h;
  args.cell_normalized = cell.norm_c.enabled;
  args.centered = cell.norm_c.enabled && cell.norm_c.params.kind == NormKind::kLayerNorm;
  args.stat_count = cell.norm_c.stat_count();
  const detail::CellSums sums = cell.gate_ops->lstm_gates(args);
  if (cell.norm_c.enabled) normalize_cell(cell, sums, c, h, ws);
  return Status::ok();
}

Status check_workspace(const LnLstmCell& cell, const LnLstmWorkspace& ws) {
  if (ws.hidden_size() != cell.hidden_size()) {
    return Status::error("ln_lstm: the workspace is for hidden size " + num(ws.hidden_size()) +
                         ", the cell's is " + num(cell.hidden_size()));
  }
  return Status::ok();
}

}  // namespace

const char* lstm_norm_placement_name(LstmNormPlacement placement) {
  switch (placement) {
    case LstmNormPlacement::kProjectionsAndCell:
      return "projections_and_cell";
    case LstmNormPlacement::kCellOnly:
      return "cell_only";
    case LstmNormPlacement::kNone:
      return "none";
  }
  return "invalid";
}

size_t LnLstmCell::input_size() const { return impl_ ? impl_->input : 0; }
size_t LnLstmCell::hidden_size() const { return impl_ ? impl_->hidden : 0; }
WeightType LnLstmCell::weight_type() const { return impl_ ? impl_->type : WeightType::kF32; }
Isa LnLstmCell::isa() const { return impl_ ? impl_->isa : Isa::kScalar; }
LstmNormPlacement LnLstmCell::placement() const {
  return impl_ ? impl_->placement : LstmNormPlacement::kNone;
}
const NormParams& LnLstmCell::norm() const {
  static const NormParams kDefault;
  return impl_ ? impl_->norm : kDefault;
}

Expected<LnLstmCell> make_ln_lstm_cell(const LnLstmWeights& w, WeightType type, Isa isa) {
  const size_t d = w.input_size, hidden = w.hidden_size;
  if (d == 0) return Status::error("ln_lstm: input_size (D) must be at least 1");
  if (hidden == 0) return Status::error("ln_lstm: hidden_size (H) must be at least 1");
  if (w.w_x == nullptr) return Status::error("ln_lstm: w_x (4H x D) is null");
  if (w.w_h == nullptr) return Status::error("ln_lstm: w_h (4H x H) is null");
  if (lstm_norm_placement_name(w.placement) == std::string("invalid")) {
    return Status::error("ln_lstm: invalid placement value " +
                         std::to_string(static_cast<int>(w.placement)));
  }
  if (Status s = check_isa_runnable(isa); !s) return Status::error("ln_lstm: " + s.message());

  auto impl = std::make_shared<LnLstmCell::Impl>();
  impl->input = d;
  impl->hidden = hidden;
  impl->type = type;
  impl->isa = isa;
  impl->placement = w.placement;
  impl->norm = w.norm;
  impl->row_ops = detail::norm_row_ops_for(isa);
  impl->gate_ops = detail::rnn_gate_ops_for(isa);
  if (impl->row_ops == nullptr || impl->gate_ops == nullptr) {
    return Status::error(std::string("ln_lstm: no kernels for ") + isa_name(isa) +
                         " in this build");
  }

  const bool projections = w.placement == LstmNormPlacement::kProjectionsAndCell;
  const bool cell = w.placement != LstmNormPlacement::kNone;
  NORMRT_ASSIGN_OR_RETURN(
      PreparedNorm nh,
      detail::prepare_norm({kCell, "N(W_h·h_{t-1}; α1, β1)", "gain_h", "bias_h"}, projections,
                           w.norm, 4 * hidden, w.gain_h, w.bias_h, {}, true));
  // b folds into β2: N(W_x·x; α2, β2) + b = N(W_x·x; α2, β2 + b).
  NORMRT_ASSIGN_OR_RETURN(
      PreparedNorm nx,
      detail::prepare_norm({kCell, "N(W_x·x_t; α2, β2)", "gain_x", "bias_x"}, projections, w.norm,
                           4 * hidden, w.gain_x, w.bias_x, {w.b}, true));
  NORMRT_ASSIGN_OR_RETURN(PreparedNorm nc,
                          detail::prepare_norm({kCell, "N(c_t; α3, β3)", "gain_c", "bias_c"}, cell,
                                               w.norm, hidden, w.gain_c, w.bias_c, {}, false));
  impl->norm_h = std::move(nh);
  impl->norm_x = std::move(nx);
  impl->norm_c = std::move(nc);

  Expected<PackedWeights> wx = pack_weights(w.w_x, 4 * hidden, d, type, isa);
  if (!wx) return Status::error("ln_lstm: w_x: " + wx.status().message());
  Expected<PackedWeights> wh = pack_weights(w.w_h, 4 * hidden, hidden, type, isa);
  if (!wh) return Status::error("ln_lstm: w_h: " + wh.status().message());
  impl->w_x = std::move(wx).value();
  impl->w_h = std::move(wh).value();

  LnLstmCell result;
  result.impl_ = std::move(impl);
  return result;
}

LnLstmWorkspace::LnLstmWorkspace(const LnLstmCell& cell, size_t chunk_steps)
    : hidden_(cell.hidden_size()),
      chunk_steps_(std::max<size_t>(chunk_steps, 1)),
      hproj_(4 * hidden_),
      normalized_(hidden_),
      zeros_(hidden_, 0.0f),
      cell_(hidden_),
      xproj_(chunk_steps_ * 4 * hidden_) {}

Status ln_lstm_project_inputs(const LnLstmCell& cell, const float* x, size_t steps, float* xproj,
                              ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  if (steps == 0) return Status::ok();
  NORMRT_RETURN_IF_ERROR(detail::check_not_null(kCell, {{"x", x, 0}, {"xproj", xproj, 0}}));
  const LnLstmCell::Impl& c = cell.impl();
  Status s = fused_linear(c.w_x, x, steps, c.input, c.norm_x.epilogue(), xproj, 4 * c.hidden, pool);
  if (!s) return Status::error(std::string(kCell) + ": W_x·x: " + s.message());
  return Status::ok();
}

Status ln_lstm_step(const LnLstmCell& cell, const float* xproj_t, const float* h_prev,
                    const float* c_prev, float* h, float* c, LnLstmWorkspace& ws,
                    ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  NORMRT_RETURN_IF_ERROR(check_workspace(cell, ws));
  const size_t hidden = cell.hidden_size();
  NORMRT_RETURN_IF_ERROR(detail::check_not_null(kCell, {{"xproj_t", xproj_t, 0},
                                                        {"h_prev", h_prev, 0},
                                                        {"c_prev", c_prev, 0},
                                                        {"h", h, 0},
                                                        {"c", c, 0}}));
  NORMRT_RETURN_IF_ERROR(detail::check_outputs(kCell, {{"h", h, hidden}, {"c", c, hidden}},
                                               {{"xproj_t", xproj_t, 4 * hidden},
                                                {"h_prev", h_prev, hidden},
                                                {"c_prev", c_prev, hidden},
                                                {"workspace", ws.hproj(), 4 * hidden},
                                                {"workspace", ws.normalized(), hidden}},
                                               {{"h", "h_prev"}, {"c", "c_prev"}}));
  return run_step(cell.impl(), xproj_t, h_prev, c_prev, h, c, ws, pool);
}

Status ln_lstm_sequence(const LnLstmCell& cell, const float* x, size_t steps, const float* h0,
                        const float* c0, float* h_out, float* c_out, LnLstmWorkspace& ws,
                        ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  NORMRT_RETURN_IF_ERROR(check_workspace(cell, ws));
  const LnLstmCell::Impl& impl = cell.impl();
  const size_t hidden = impl.hidden, d = impl.input;
  if (c0 == nullptr) c0 = ws.zeros();
  if (steps == 0) {
    if (c_out != nullptr && c_out != c0) std::copy(c0, c0 + hidden, c_out);
    return Status::ok();
  }
  NORMRT_RETURN_IF_ERROR(detail::check_not_null(kCell, {{"x", x, 0}, {"h_out", h_out, 0}}));
  if (h0 == nullptr) h0 = ws.zeros();
  // Every step writes c in place over the previous one: c_out, or the
  // workspace's; c0 is copied there first unless it is c_out itself.
  float* c = c_out != nullptr ? c_out : ws.cell();
  NORMRT_RETURN_IF_ERROR(detail::check_outputs(
      kCell, {{"h_out", h_out, steps * hidden}, {"c_out", c, hidden}},
      {{"x", x, steps * d}, {"h0", h0, hidden}, {"c0", c0, hidden}}, {{"c_out", "c0"}}));
  if (c != c0) std::copy(c0, c0 + hidden, c);

  const float* h_prev = h0;
  for (size_t t0 = 0; t0 < steps; t0 += ws.chunk_steps()) {
    const size_t chunk = std::min(ws.chunk_steps(), steps - t0);
    NORMRT_RETURN_IF_ERROR(ln_lstm_project_inputs(cell, x + t0 * d, chunk, ws.xproj(), pool));
    for (size_t t = 0; t < chunk; ++t) {
      float* h = h_out + (t0 + t) * hidden;
      NORMRT_RETURN_IF_ERROR(
          run_step(impl, ws.xproj() + t * 4 * hidden, h_prev, c, h, c, ws, pool));
      h_prev = h;
    }
  }
  return Status::ok();
}

}  // namespace normrt
