#include "models/rnnsearch/nematus_emitter.h"

#include <utility>

namespace normrt {

NematusNormNames gru_site(const std::string& prefix, const std::string& m) {
  return {prefix + "_" + m + "_lns", prefix + "_" + m + "_lnb"};
}

NematusNormNames ff_site(const std::string& prefix) { return {prefix + "_ln_s", prefix + "_ln_b"}; }

const std::vector<float>& NematusEmitter::values(const std::string& name,
                                                 const std::vector<int64_t>& shape) {
  auto found = read_.find(name);
  if (found != read_.end()) return found->second;
  return read_.emplace(name, check_.read(name, shape)).first->second;
}

TensorId NematusEmitter::weight(const std::string& name, const std::vector<int64_t>& shape) {
  return add_weight(*b_, name, shape, values(name, shape), matrix_dtype_);
}

TensorId NematusEmitter::weight_from(const std::string& name, const std::vector<int64_t>& shape,
                                     const std::vector<float>& values) {
  return add_weight(*b_, name, shape, values, matrix_dtype_);
}

TensorId NematusEmitter::matrix_t(const std::string& name, int64_t in, int64_t out) {
  const std::vector<float>& m = values(name, {in, out});  // x·W: [in, out], row-major
  std::vector<float> t;
  if (!m.empty()) {
    t.resize(m.size());
    for (int64_t i = 0; i < in; ++i)
      for (int64_t o = 0; o < out; ++o) t[o * in + i] = m[i * out + o];
  }
  return add_weight(*b_, name + ".T", {out, in}, t, matrix_dtype_);
}

TensorId NematusEmitter::norm(const std::string& node, TensorId x, int64_t rows, int64_t n,
                              const NematusNormNames& site) {
  if (!c_.norm.enabled) return x;
  TensorId gain = weight(site.gain, {n});
  TensorId bias = weight(site.bias, {n});
  return b_->node(norm_op_type(c_.norm.kind), node, {x, gain, bias}, {{rows, n}},
                  norm_attributes(c_.norm));
}

TensorId NematusEmitter::projection(const std::string& node, TensorId x, int64_t rows,
                                    const std::string& w, const std::string& b, int64_t in,
                                    int64_t out, const NematusNormNames& site) {
  TensorId weight_t = matrix_t(w, in, out);
  TensorId bias = b.empty() ? kNoTensor : weight(b, {out});
  TensorId y = b_->node(OpType::kLinear, node, {x, weight_t, bias}, {{rows, out}});
  return norm(node + ".norm", y, rows, out, site);
}

NematusEmitter::Projections NematusEmitter::gru_inputs(const std::string& prefix, TensorId x,
                                                       int64_t rows, int64_t in) {
  const int64_t d = c_.dim;
  Projections p;
  p.xg = projection(prefix + "_W", x, rows, prefix + "_W", prefix + "_b", in, 2 * d,
                    gru_site(prefix, "W"));
  p.xc = projection(prefix + "_Wx", x, rows, prefix + "_Wx", prefix + "_bx", in, d,
                    gru_site(prefix, "Wx"));
  return p;
}

std::vector<Attribute> NematusEmitter::gru_attributes(bool reverse) const {
  std::vector<Attribute> attributes = {norm_selection_attribute(c_.norm)};
  if (c_.norm.enabled)
    for (Attribute& a : norm_attributes(c_.norm)) attributes.push_back(std::move(a));
  if (reverse) attributes.push_back({"reverse", int64_t{1}});
  return attributes;
}

TensorId NematusEmitter::gru(const std::string& node, Projections x, TensorId h0, int64_t rows,
                             const std::string& prefix, const std::string& u, const std::string& ux,
                             const std::string& b_u, const std::string& b_ux, bool reverse) {
  const int64_t d = c_.dim;
  const bool normalized = c_.norm.enabled;
  const NematusNormNames gates = gru_site(prefix, u), candidate = gru_site(prefix, ux);
  std::vector<TensorId> inputs = {x.xg, x.xc, h0, matrix_t(prefix + "_" + u, d, 2 * d),
                                  matrix_t(prefix + "_" + ux, d, d)};
  inputs.push_back(b_u.empty() ? kNoTensor : weight(b_u, {2 * d}));
  inputs.push_back(normalized ? weight(gates.gain, {2 * d}) : kNoTensor);
  inputs.push_back(normalized ? weight(gates.bias, {2 * d}) : kNoTensor);
  inputs.push_back(b_ux.empty() ? kNoTensor : weight(b_ux, {d}));
  inputs.push_back(normalized ? weight(candidate.gain, {d}) : kNoTensor);
  inputs.push_back(normalized ? weight(candidate.bias, {d}) : kNoTensor);
  return b_->node(OpType::kGruRecurrenceCho, node, std::move(inputs), {{rows, d}},
                  gru_attributes(reverse));
}

}  // namespace normrt
