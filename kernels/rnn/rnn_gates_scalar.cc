// The scalar element-wise passes: plain loops in double with the reference
// activations, rounded to float once per stored value. The portable path
// (Isa::kScalar) and the specification the SIMD passes follow.

#include <cmath>

#include "kernels/activation/activation_variants.h"
#include "kernels/rnn/rnn_gates.h"

namespace normrt::detail {
namespace {

double sigmoid(double x) { return activation_reference(Activation::kSigmoid, x, 0.0); }

CellSums lstm_gates(const LstmGateArgs& a) {
  const size_t hidden = a.hidden;
  CellSums sums;
  for (size_t j = 0; j < hidden; ++j) {
    auto gate = [&](size_t q) {
      return static_cast<double>(a.hproj[q * hidden + j]) + a.xproj[q * hidden + j];
    };
    const double f = sigmoid(gate(0)), i = sigmoid(gate(1)), o = sigmoid(gate(2));
    const double g = std::tanh(gate(3));
    const float c = static_cast<float>(f * a.c_prev[j] + i * g);
    a.c[j] = c;
    if (a.cell_normalized && j < a.stat_count) {
      if (a.centered) sums.sum += c;
      sums.sum_sq += static_cast<double>(c) * c;
    }
    a.h[j] = static_cast<float>(a.cell_normalized ? o : o * std::tanh(static_cast<double>(c)));
  }
  return sums;
}

void lstm_output(const float* c, float* h, size_t n, const NormScale& map, const float* gain,
                 const float* bias) {
  const double mean = static_cast<double>(map.mean_hi) + map.mean_lo;
  for (size_t j = 0; j < n; ++j) {
    double y = (c[j] - mean) * map.scale;
    if (gain) y *= gain[j];
    if (bias) y += bias[j];
    h[j] = static_cast<float>(h[j] * std::tanh(y));
  }
}

void gru_gates(const GruGateArgs& a) {
  const size_t hidden = a.hidden;
  for (size_t j = 0; j < hidden; ++j) {
    auto in = [&](const float* base, size_t q) {
      return static_cast<double>(base[q * hidden + j]);
    };
    const double z = sigmoid(in(a.hproj, 0) + in(a.xproj, 0));
    const double r = sigmoid(in(a.hproj, 1) + in(a.xproj, 1));
    const double candidate = std::tanh(in(a.xproj, 2) + r * in(a.hproj, 2));
    const double h_prev = a.h_prev[j];
    a.h[j] = static_cast<float>((1.0 - z) * h_prev + z * candidate);
  }
}

}  // namespace

const RnnGateOps& rnn_gate_ops_scalar() {
  static const RnnGateOps ops = {lstm_gates, lstm_output, gru_gates};
  return ops;
}

}  // namespace normrt::detail
