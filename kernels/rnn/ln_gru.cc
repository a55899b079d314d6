// The LN-GRU cell: preparation, argument checks, and the step as fused linear
// calls and the per-ISA element-wise pass (see ln_gru.h).

#include "kernels/rnn/ln_gru.h"

#include <algorithm>
#include <string>

#include "kernels/linear/fused_linear.h"
#include "kernels/rnn/rnn_common.h"
#include "kernels/rnn/rnn_gates.h"

namespace normrt {

using detail::PreparedNorm;

struct LnGruCell::Impl {
  size_t input = 0, hidden = 0;  // D, H
  WeightType type = WeightType::kF32;
  Isa isa = Isa::kScalar;
  bool normalize = true;
  NormParams norm;      // as given
  PackedWeights w_x;    // (2H, D)
  PackedWeights w;      // (H, D)
  PackedWeights w_h;    // (2H, H)
  PackedWeights u;      // (H, H)
  PreparedNorm norm_h;  // N(W_h·h; α1, β1)
  PreparedNorm norm_x;  // N(W_x·x; α2, β2)
  PreparedNorm norm_w;  // N(W·x; α3, β3)
  PreparedNorm norm_u;  // N(U·h; α4, β4)
  const detail::RnnGateOps* gate_ops = nullptr;
};

namespace {

constexpr const char* kCell = "ln_gru";

Status check_cell(const LnGruCell& cell) {
  if (cell.empty())
    return Status::error("ln_gru: the cell is empty (not made by make_ln_gru_cell)");
  return Status::ok();
}

Status check_workspace(const LnGruCell& cell, const LnGruWorkspace& ws) {
  if (ws.hidden_size() != cell.hidden_size()) {
    return Status::error("ln_gru: the workspace is for hidden size " +
                         std::to_string(ws.hidden_size()) + ", the cell's is " +
                         std::to_string(cell.hidden_size()));
  }
  return Status::ok();
}

Status run_step(const LnGruCell::Impl& cell, const float* xproj_t, const float* h_prev, float* h,
                LnGruWorkspace& ws, ThreadPool* pool) {
  const size_t hidden = cell.hidden;
  Status s = fused_linear(cell.w_h, h_prev, 1, hidden, cell.norm_h.epilogue(), ws.hproj(),
                          2 * hidden, pool);
  if (!s) return Status::error(std::string(kCell) + ": W_h·h_{t-1}: " + s.message());
  s = fused_linear(cell.u, h_prev, 1, hidden, cell.norm_u.epilogue(), ws.hproj() + 2 * hidden,
                   hidden, pool);
  if (!s) return Status::error(std::string(kCell) + ": U·h_{t-1}: " + s.message());
  detail::GruGateArgs args;
  args.hidden = hidden;
  args.hproj = ws.hproj();
  args.xproj = xproj_t;
  args.h_prev = h_prev;
  args.h = h;
  cell.gate_ops->gru_gates(args);
  return Status::ok();
}

}  // namespace

size_t LnGruCell::input_size() const { return impl_ ? impl_->input : 0; }
size_t LnGruCell::hidden_size() const { return impl_ ? impl_->hidden : 0; }
WeightType LnGruCell::weight_type() const { return impl_ ? impl_->type : WeightType::kF32; }
Isa LnGruCell::isa() const { return impl_ ? impl_->isa : Isa::kScalar; }
bool LnGruCell::normalized() const { return impl_ && impl_->normalize; }
const NormParams& LnGruCell::norm() const {
  static const NormParams kDefault;
  return impl_ ? impl_->norm : kDefault;
}

Expected<LnGruCell> make_ln_gru_cell(const LnGruWeights& w, WeightType type, Isa isa) {
  const size_t d = w.input_size, hidden = w.hidden_size;
  if (d == 0) return Status::error("ln_gru: input_size (D) must be at least 1");
  if (hidden == 0) return Status::error("ln_gru: hidden_size (H) must be at least 1");
  struct Matrix {
    const char* name;
    const float* p;
    size_t n, k;
    PackedWeights LnGruCell::Impl::*dst;
  };
  const Matrix matrices[] = {
      {"w_x (2H x D)", w.w_x, 2 * hidden, d, &LnGruCell::Impl::w_x},
      {"w (H x D)", w.w, hidden, d, &LnGruCell::Impl::w},
      {"w_h (2H x H)", w.w_h, 2 * hidden, hidden, &LnGruCell::Impl::w_h},
      {"u (H x H)", w.u, hidden, hidden, &LnGruCell::Impl::u},
  };
  for (const Matrix& m : matrices) {
    if (m.p == nullptr) return Status::error(std::string("ln_gru: ") + m.name + " is null");
  }
  if (Status s = check_isa_runnable(isa); !s) return Status::error("ln_gru: " + s.message());

  auto impl = std::make_shared<LnGruCell::Impl>();
  impl->input = d;
  impl->hidden = hidden;
  impl->type = type;
  impl->isa = isa;
  impl->normalize = w.normalize;
  impl->norm = w.norm;
  impl->gate_ops = detail::rnn_gate_ops_for(isa);
  if (impl->gate_ops == nullptr) {
    return Status::error(std::string("ln_gru: no kernels for ") + isa_name(isa) + " in this build");
  }

  struct Norm {
    detail::CellNormLabel site;
    size_t n;
    const float *gain, *bias;
    PreparedNorm LnGruCell::Impl::*dst;
  };
  const Norm norms[] = {
      {{kCell, "N(W_h·h_{t-1}; α1, β1)", "gain_h", "bias_h"},
       2 * hidden,
       w.gain_h,
       w.bias_h,
       &LnGruCell::Impl::norm_h},
      {{kCell, "N(W_x·x_t; α2, β2)", "gain_x", "bias_x"},
       2 * hidden,
       w.gain_x,
       w.bias_x,
       &LnGruCell::Impl::norm_x},
      {{kCell, "N(W·x_t; α3, β3)", "gain_w", "bias_w"},
       hidden,
       w.gain_w,
       w.bias_w,
       &LnGruCell::Impl::norm_w},
      {{kCell, "N(U·h_{t-1}; α4, β4)", "gain_u", "bias_u"},
       hidden,
       w.gain_u,
       w.bias_u,
       &LnGruCell::Impl::norm_u},
  };
  for (const Norm& n : norms) {
    NORMRT_ASSIGN_OR_RETURN(PreparedNorm p, detail::prepare_norm(n.site, w.normalize, w.norm, n.n,
                                                                 n.gain, n.bias, {}, true));
    (*impl).*n.dst = std::move(p);
  }
  for (const Matrix& m : matrices) {
    Expected<PackedWeights> packed = pack_weights(m.p, m.n, m.k, type, isa);
    if (!packed)
      return Status::error(std::string("ln_gru: ") + m.name + ": " + packed.status().message());
    (*impl).*m.dst = std::move(packed).value();
  }

  LnGruCell result;
  result.impl_ = std::move(impl);
  return result;
}

LnGruWorkspace::LnGruWorkspace(const LnGruCell& cell, size_t chunk_steps)
    : hidden_(cell.hidden_size()),
      chunk_steps_(std::max<size_t>(chunk_steps, 1)),
      hproj_(3 * hidden_),
      zeros_(hidden_, 0.0f),
      xproj_(chunk_steps_ * 3 * hidden_) {}

Status ln_gru_project_inputs(const LnGruCell& cell, const float* x, size_t steps, float* xproj,
                             ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  if (steps == 0) return Status::ok();
  NORMRT_RETURN_IF_ERROR(detail::check_not_null(kCell, {{"x", x, 0}, {"xproj", xproj, 0}}));
  const LnGruCell::Impl& c = cell.impl();
  const size_t stride = 3 * c.hidden;
  Status s = fused_linear(c.w_x, x, steps, c.input, c.norm_x.epilogue(), xproj, stride, pool);
  if (!s) return Status::error(std::string(kCell) + ": W_x·x: " + s.message());
  s = fused_linear(c.w, x, steps, c.input, c.norm_w.epilogue(), xproj + 2 * c.hidden, stride, pool);
  if (!s) return Status::error(std::string(kCell) + ": W·x: " + s.message());
  return Status::ok();
}

Status ln_gru_step(const LnGruCell& cell, const float* xproj_t, const float* h_prev, float* h,
                   LnGruWorkspace& ws, ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  NORMRT_RETURN_IF_ERROR(check_workspace(cell, ws));
  const size_t hidden = cell.hidden_size();
  NORMRT_RETURN_IF_ERROR(
      detail::check_not_null(kCell, {{"xproj_t", xproj_t, 0}, {"h_prev", h_prev, 0}, {"h", h, 0}}));
  NORMRT_RETURN_IF_ERROR(detail::check_outputs(kCell, {{"h", h, hidden}},
                                               {{"xproj_t", xproj_t, 3 * hidden},
                                                {"h_prev", h_prev, hidden},
                                                {"workspace", ws.hproj(), 3 * hidden}},
                                               {{"h", "h_prev"}}));
  return run_step(cell.impl(), xproj_t, h_prev, h, ws, pool);
}

Status ln_gru_sequence(const LnGruCell& cell, const float* x, size_t steps, const float* h0,
                       float* h_out, LnGruWorkspace& ws, ThreadPool* pool) {
  NORMRT_RETURN_IF_ERROR(check_cell(cell));
  NORMRT_RETURN_IF_ERROR(check_workspace(cell, ws));
  if (steps == 0) return Status::ok();
  const LnGruCell::Impl& impl = cell.impl();
  const size_t hidden = impl.hidden, d = impl.input;
  NORMRT_RETURN_IF_ERROR(detail::check_not_null(kCell, {{"x", x, 0}, {"h_out", h_out, 0}}));
  if (h0 == nullptr) h0 = ws.zeros();
  NORMRT_RETURN_IF_ERROR(detail::check_outputs(kCell, {{"h_out", h_out, steps * hidden}},
                                               {{"x", x, steps * d}, {"h0", h0, hidden}}, {}));
  const float* h_prev = h0;
  for (size_t t0 = 0; t0 < steps; t0 += ws.chunk_steps()) {
    const size_t chunk = std::min(ws.chunk_steps(), steps - t0);
    NORMRT_RETURN_IF_ERROR(ln_gru_project_inputs(cell, x + t0 * d, chunk, ws.xproj(), pool));
    for (size_t t = 0; t < chunk; ++t) {
      float* h = h_out + (t0 + t) * hidden;
      NORMRT_RETURN_IF_ERROR(run_step(impl, ws.xproj() + t * 3 * hidden, h_prev, h, ws, pool));
      h_prev = h;
    }
  }
  return Status::ok();
}

}  // namespace normrt
