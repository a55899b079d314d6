#include "tests/kernels/fused_test_support.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <sstream>

#include "tests/kernels/linear_test_support.h"
#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

constexpr double kFloor = 2.0 * FLT_MIN;

uint64_t mix(uint64_t z) {  // splitmix64's finalizer: a fixed, well-spread hash
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const char* norm_choice_name(NormChoice choice) {
  switch (choice) {
    case NormChoice::kNone:
      return "no_norm";
    case NormChoice::kLayerNorm:
      return "layer_norm";
    case NormChoice::kRmsNorm:
      return "rms_norm";
    case NormChoice::kPRmsNorm:
      return "prms_norm";
  }
  return "?";
}

const char* layout_label(ResidualLayout layout) {
  switch (layout) {
    case ResidualLayout::kNone:
      return "no_residual";
    case ResidualLayout::kSumSeparate:
      return "residual,sum_dst_separate";
    case ResidualLayout::kSumIntoResidual:
      return "residual,sum_dst==residual";
    case ResidualLayout::kNoSum:
      return "residual,no_sum_dst";
  }
  return "?";
}

bool has_residual(ResidualLayout layout) { return layout != ResidualLayout::kNone; }
bool writes_sum(ResidualLayout layout) {
  return layout == ResidualLayout::kSumSeparate || layout == ResidualLayout::kSumIntoResidual;
}

// x·Wᵀ (+ b) with the preferred kernel of `isa`, (m, n).
std::vector<float> run_linear(const std::vector<float>& w, const std::vector<float>& x,
                              const float* bias, size_t m, size_t n, size_t k, WeightType type,
                              Isa isa) {
  Expected<PackedWeights> packed = pack_weights(w.data(), n, k, type, isa);
  REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
  std::vector<float> y(m * n);
  Status s = linear(*packed, x.data(), m, k, y.data(), n, bias);
  REQUIRE_MESSAGE(s.is_ok(), s.message());
  return y;
}

// Writes `values` (rows of n) into a guarded buffer's rows.
void fill_rows(GuardedOutput& buffer, const float* values, size_t m, size_t n, size_t stride) {
  for (size_t r = 0; r < m; ++r) std::memcpy(buffer.data() + r * stride, values + r * n, n * 4);
}

std::vector<float> read_rows(GuardedOutput& buffer, size_t m, size_t n, size_t stride) {
  std::vector<float> out(m * n);
  for (size_t r = 0; r < m; ++r) std::memcpy(out.data() + r * n, buffer.data() + r * stride, n * 4);
  return out;
}

// Guard zones intact and the row padding [n, stride) never written.
void check_guarded(const char* name, const GuardedOutput& buffer, size_t m, size_t n, size_t stride,
                   std::vector<std::string>& damage) {
  if (!buffer.guards_intact()) damage.push_back(std::string(name) + ": guard zone written");
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = n; c < stride; ++c) {
      if (!buffer.untouched(r, c)) {
        damage.push_back(std::string(name) + ": row padding written at row " + std::to_string(r) +
                         ", column " + std::to_string(c));
        return;
      }
    }
  }
}

void check_unchanged(const char* name, const float* now, const float* before, size_t count,
                     std::vector<std::string>& damage) {
  for (size_t i = 0; i < count; ++i) {
    if (!same_bits(now[i], before[i])) {
      damage.push_back(std::string(name) + " (read-only) changed at element " + std::to_string(i));
      return;
    }
  }
}

}  // namespace

double fused_activation_tolerance(Activation activation) {
  return activation == Activation::kGeluErfBf16
             ? activation_tolerance(activation) + kActivationTolerance
             : kActivationTolerance;
}

double activation_slope(Activation activation) {
  switch (activation) {
    case Activation::kGeluErf:
    case Activation::kGeluErfBf16:
    case Activation::kGeluTanh:
      return 1.129;  // at x = ±√2 (erf); 1.12899 (tanh form)
    case Activation::kSilu:
      return 1.0999;
    case Activation::kSigmoid:
      return 0.25;
    default:
      return 1.0;
  }
}

NormParams FusedSpec::params() const {
  NormParams params;
  params.kind = norm == NormChoice::kRmsNorm    ? NormKind::kRmsNorm
                : norm == NormChoice::kPRmsNorm ? NormKind::kPRmsNorm
                                                : NormKind::kLayerNorm;
  params.eps = eps;
  params.eps_placement = eps_placement;
  params.gain_convention =
      gain == GainKind::kOnePlus ? GainConvention::kOnePlus : GainConvention::kAsStored;
  params.p = p;
  return params;
}

std::string describe(const FusedSpec& s) {
  std::ostringstream out;
  out << norm_choice_name(s.norm);
  if (s.normalize()) {
    if (s.norm == NormChoice::kPRmsNorm) out << "(p=" << s.p << ")";
    out << "," << placement_name(s.eps_placement) << ",eps=" << s.eps << ",gain="
        << (s.gain == GainKind::kNone       ? "none"
            : s.gain == GainKind::kAsStored ? "g"
                                            : "1+g")
        << (s.norm_bias ? ",norm_bias" : "");
  }
  out << "," << activation_name(s.activation) << "," << layout_label(s.layout)
      << (s.linear_bias ? ",linear_bias" : ",no_linear_bias");
  return out.str();
}

FusedSpec rotated_spec(size_t index, size_t n) {
  FusedSpec s;
  s.norm = kAllNormChoices[index % 4];
  constexpr size_t kActivations = std::size(kAllActivations);
  s.activation = kAllActivations[(index / 4) % kActivations];
  s.layout = kAllResidualLayouts[(index / (4 * kActivations)) % 4];
  const uint64_t h = mix(index);
  s.eps_placement = (h & 1) ? EpsPlacement::kAddedToRms : EpsPlacement::kInsideSqrt;
  s.gain = static_cast<GainKind>((h >> 1) % 3);
  s.norm_bias = (h >> 3) & 1;
  s.linear_bias = (h >> 4) % 4 != 0;
  constexpr double kFractions[] = {1.0 / 16, 1.0 / 3, 1.0};
  s.p = kFractions[(h >> 6) % 3];
  s.eps = (h >> 8) & 1 ? 1e-5f : 1e-6f;
  if (s.norm == NormChoice::kPRmsNorm) {
    for (double p : kFractions) {
      if (norm_stat_count(s.params(), n) > 0) break;
      s.p = p;
    }
  }
  return s;
}

void compute_reference_matmul(FusedProblem& p) {
  std::vector<float> abs_w(p.w.size()), abs_x(p.x.size());
  for (size_t i = 0; i < p.w.size(); ++i) abs_w[i] = std::fabs(p.w[i]);
  for (size_t i = 0; i < p.x.size(); ++i) abs_x[i] = std::fabs(p.x[i]);
  // bf16 rounding is symmetric (to nearest, ties to even): bf16(|w|) = |bf16(w)|.
  p.scale = run_linear(abs_w, abs_x, nullptr, p.m, p.n, p.k, p.type, runnable_isas().back());
  p.forget_reference_matmul();
}

const std::vector<float>& FusedProblem::reference_matmul(bool with_bias) const {
  if (!matmul_done_[with_bias]) {
    matmul_[with_bias].assign(m * n, 0.0f);
    Status s = linear(scalar_weights(), x.data(), m, k, matmul_[with_bias].data(), n,
                      with_bias ? bias.data() : nullptr);
    REQUIRE_MESSAGE(s.is_ok(), s.message());
    matmul_done_[with_bias] = true;
  }
  return matmul_[with_bias];
}

const PackedWeights& FusedProblem::scalar_weights() const {
  if (!scalar_weights_) {
    Expected<PackedWeights> packed = pack_weights(w.data(), n, k, type, Isa::kScalar);
    REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
    scalar_weights_ = std::make_shared<const PackedWeights>(std::move(packed).value());
  }
  return *scalar_weights_;
}

void FusedProblem::forget_reference_matmul() {
  matmul_done_[0] = matmul_done_[1] = false;
  scalar_weights_.reset();
}

FusedProblem leading_rows(const FusedProblem& p, size_t m) {
  REQUIRE(m <= p.m);
  FusedProblem out;
  out.m = m;
  out.n = p.n;
  out.k = p.k;
  out.type = p.type;
  out.w = p.w;
  out.x.assign(p.x.begin(), p.x.begin() + m * p.k);
  out.bias = p.bias;
  out.gain = p.gain;
  out.norm_bias = p.norm_bias;
  out.residual.assign(p.residual.begin(), p.residual.begin() + m * p.n);
  out.scale.assign(p.scale.begin(), p.scale.begin() + m * p.n);
  p.scalar_weights();  // packed once, shared
  out.scalar_weights_ = p.scalar_weights_;
  return out;
}

FusedProblem make_fused_problem(size_t m, size_t n, size_t k, WeightType type, uint32_t seed,
                                size_t scaled_row, float x_scale) {
  FusedProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.type = type;
  // splitmix64 over a counter: one hash per value (the weights of the large
  // shapes are 16.8M values; std::mt19937 took most of the test's time).
  uint64_t counter = static_cast<uint64_t>(seed) << 32;
  auto unit = [&] {  // uniform in [-1, 1)
    return static_cast<float>(static_cast<int32_t>(mix(counter++) >> 32)) * 0x1p-31f;
  };
  auto draw = [&] {
    const uint64_t h = mix(counter++);
    const float u = static_cast<float>(static_cast<int32_t>(h >> 32)) * 0x1p-31f;
    return (h % 32 == 0 ? 64.0f : 1.0f) * u;
  };
  p.w.resize(n * k);
  p.x.resize(m * k);
  p.bias.resize(n);
  p.residual.resize(m * n);
  p.gain.resize(n);
  p.norm_bias.resize(n);
  for (float& v : p.w) v = draw();
  for (float& v : p.x) v = draw();
  for (float& v : p.bias) v = draw();
  // The residual at the size of t (√k·typical product), so the add matters.
  const float residual_size = std::sqrt(static_cast<float>(k));
  for (float& v : p.residual) v = residual_size * draw();
  for (float& v : p.gain) v = unit();
  for (float& v : p.norm_bias) v = unit();
  if (scaled_row < m) {
    for (size_t i = 0; i < k; ++i) p.x[scaled_row * k + i] *= x_scale;
    for (size_t c = 0; c < n; ++c) p.residual[scaled_row * n + c] *= x_scale;
  }
  compute_reference_matmul(p);
  return p;
}

FusedReference reference_for(const FusedProblem& p, const FusedSpec& spec) {
  const size_t m = p.m, n = p.n;
  const std::vector<float>& mm = p.reference_matmul(spec.linear_bias);
  const bool residual = has_residual(spec.layout);
  std::vector<float> t = mm;
  std::vector<double> a(m * n);  // A_i = S_i + |r_i|
  for (size_t i = 0; i < m * n; ++i) {
    if (residual) t[i] = mm[i] + p.residual[i];
    a[i] = static_cast<double>(p.scale[i]) + (spec.linear_bias ? std::fabs(p.bias[i % n]) : 0.0) +
           (residual ? std::fabs(p.residual[i]) : 0.0);
  }
  return epilogue_reference(t, a, m, n, p, spec);
}

FusedReference epilogue_reference(const std::vector<float>& t_in, const std::vector<double>& a,
                                  size_t m, size_t n, const FusedProblem& p,
                                  const FusedSpec& spec) {
  FusedReference ref;
  ref.t = t_in;
  ref.y.assign(m * n, 0.0f);
  const NormParams params = spec.params();
  const float* gain = spec.gain != GainKind::kNone ? p.gain.data() : nullptr;
  const float* norm_bias = spec.norm_bias ? p.norm_bias.data() : nullptr;
  if (spec.normalize()) {
    NormRows rows;
    rows.rows = m;
    rows.n = n;
    rows.src = ref.t.data();
    rows.src_stride = n;
    rows.dst = ref.y.data();
    rows.dst_stride = n;
    rows.gain = gain;
    rows.bias = norm_bias;
    Status valid = norm_validate(params, rows);
    REQUIRE_MESSAGE(valid.is_ok(), valid.message());
    norm_kernel_for(Isa::kScalar)(params, rows);
  } else {
    ref.y = ref.t;
  }
  activation_kernel_for(Isa::kScalar)(spec.activation, spec.activation_alpha, ref.y.data(),
                                      ref.y.data(), m * n);

  const double slope = activation_slope(spec.activation);
  ref.t_bound.resize(m * n);
  ref.y_bound.resize(m * n);
  ref.thread_bound.resize(m * n);
  const size_t stat_count = spec.normalize() ? norm_stat_count(params, n) : n;
  for (size_t r = 0; r < m; ++r) {
    const float* t = ref.t.data() + r * n;
    const double* ar = a.data() + r * n;
    double a_row = 0.0;
    for (size_t c = 0; c < n; ++c) a_row = std::max(a_row, ar[c]);
    // The reference statistics in double, for x̂, s and σ.
    double mean = 0.0, stat = 0.0;
    if (spec.norm == NormChoice::kLayerNorm) {
      for (size_t c = 0; c < n; ++c) mean += t[c];
      mean /= static_cast<double>(n);
      for (size_t c = 0; c < n; ++c) stat += (t[c] - mean) * (t[c] - mean);
      stat /= static_cast<double>(n);
    } else {
      for (size_t c = 0; c < stat_count; ++c) stat += static_cast<double>(t[c]) * t[c];
      stat /= static_cast<double>(stat_count);
    }
    const double s = params.eps_placement == EpsPlacement::kAddedToRms
                         ? 1.0 / (std::sqrt(stat) + params.eps)
                         : 1.0 / std::sqrt(stat + params.eps);
    const double sigma = std::sqrt(stat);
    for (size_t c = 0; c < n; ++c) {
      const size_t i = r * n + c;
      const double y_abs = std::fabs(ref.y[i]);
      ref.t_bound[i] = kMatmulTolerance * ar[c] + kFloor;
      if (!spec.normalize()) {
        ref.y_bound[i] = slope * kMatmulTolerance * ar[c] +
                         fused_activation_tolerance(spec.activation) * y_abs + kFloor;
        ref.thread_bound[i] = kThreadTolerance * (slope * std::fabs(t[c]) + y_abs) + kFloor;
        continue;
      }
      const double g = gain == nullptr                   ? 1.0
                       : spec.gain == GainKind::kOnePlus ? 1.0 + gain[c]
                                                         : gain[c];
      const double beta = norm_bias ? std::fabs(norm_bias[c]) : 0.0;
      const double x_hat = (t[c] - mean) * s;
      const double centering = spec.norm == NormChoice::kLayerNorm ? std::fabs(g) * sigma * s : 0.0;
      const double magnitude = std::fabs(x_hat * g) + beta;
      const double through_norm =
          kMatmulTolerance * s * std::fabs(g) * (ar[c] + a_row * (1.0 + std::fabs(x_hat)));
      ref.y_bound[i] = slope * (through_norm + kNormTolerance * (magnitude + centering)) +
                       fused_activation_tolerance(spec.activation) * y_abs + kFloor;
      ref.thread_bound[i] = slope * (kStatRounding * (std::fabs(x_hat * g) + centering) +
                                     kThreadTolerance * magnitude) +
                            kThreadTolerance * y_abs + kFloor;
    }
  }
  return ref;
}

FusedPlacement rotated_placement(size_t index, size_t m) {
  const uint64_t h = mix(index ^ 0x5eedull);
  FusedPlacement p;
  p.x_offset = h % 4;
  p.y_offset = (h >> 2) % 4;
  p.residual_offset = (h >> 4) % 4;
  p.sum_offset = (h >> 6) % 4;
  p.vector_offset = (h >> 8) % 4;
  if (m > 1) {
    constexpr size_t kPads[] = {0, 1, 16};
    p.x_pad = kPads[(h >> 10) % 3];
    p.y_pad = kPads[(h >> 12) % 3];
    p.residual_pad = kPads[(h >> 14) % 3];
    p.sum_pad = kPads[(h >> 16) % 3];
  }
  return p;
}

FusedRun run_fused(const PackedWeights& w, const FusedProblem& p, const FusedSpec& spec,
                   const FusedPlacement& place, ThreadPool* pool) {
  const size_t m = p.m, n = p.n, k = p.k;
  const size_t x_stride = k + (m > 1 ? place.x_pad : 0);
  const size_t y_stride = n + (m > 1 ? place.y_pad : 0);
  const size_t r_stride = n + (m > 1 ? place.residual_pad : 0);
  const size_t s_stride = n + (m > 1 ? place.sum_pad : 0);

  std::vector<float> x_storage, bias_storage, gain_storage, norm_bias_storage;
  const float* x = place_rows(p.x, m, k, x_stride, place.x_offset, x_storage);
  const float* bias = place_rows(p.bias, 1, n, n, place.vector_offset, bias_storage);
  const float* gain = place_rows(p.gain, 1, n, n, place.vector_offset, gain_storage);
  const float* norm_bias = place_rows(p.norm_bias, 1, n, n, place.vector_offset, norm_bias_storage);
  GuardedOutput y(m, y_stride, place.y_offset);
  GuardedOutput residual(m, r_stride, place.residual_offset);
  GuardedOutput sum(m, s_stride, place.sum_offset);
  fill_rows(residual, p.residual.data(), m, n, r_stride);

  LinearEpilogue e;
  e.bias = spec.linear_bias ? bias : nullptr;
  if (has_residual(spec.layout)) {
    e.residual = residual.data();
    e.residual_stride = r_stride;
  }
  if (spec.layout == ResidualLayout::kSumSeparate) {
    e.sum_dst = sum.data();
    e.sum_stride = s_stride;
  } else if (spec.layout == ResidualLayout::kSumIntoResidual) {
    e.sum_dst = residual.data();
    e.sum_stride = r_stride;
  }
  e.normalize = spec.normalize();
  e.norm = spec.params();
  e.gain = spec.gain != GainKind::kNone ? gain : nullptr;
  e.norm_bias = spec.norm_bias ? norm_bias : nullptr;
  e.activation = spec.activation;
  e.activation_alpha = spec.activation_alpha;

  FusedRun run;
  run.status = fused_linear(w, x, m, x_stride, e, y.data(), y_stride, pool);
  run.y = read_rows(y, m, n, y_stride);
  check_guarded("y", y, m, n, y_stride, run.damage);
  check_guarded("residual buffer", residual, m, n, r_stride, run.damage);
  check_guarded("sum_dst buffer", sum, m, n, s_stride, run.damage);
  if (spec.layout == ResidualLayout::kSumSeparate) run.sum = read_rows(sum, m, n, s_stride);
  if (spec.layout == ResidualLayout::kSumIntoResidual) {
    run.sum = read_rows(residual, m, n, r_stride);
  } else {
    const std::vector<float> r_now = read_rows(residual, m, n, r_stride);
    check_unchanged("residual", r_now.data(), p.residual.data(), m * n, run.damage);
  }
  if (spec.layout != ResidualLayout::kSumSeparate) {
    for (size_t r = 0; r < m && run.damage.empty(); ++r) {
      for (size_t c = 0; c < n; ++c) {
        if (!sum.untouched(r, c)) {
          run.damage.push_back("the unused sum buffer was written");
          break;
        }
      }
    }
  }
  for (size_t r = 0; r < m; ++r) check_unchanged("x", x + r * x_stride, &p.x[r * k], k, run.damage);
  check_unchanged("bias", bias, p.bias.data(), n, run.damage);
  check_unchanged("gain", gain, p.gain.data(), n, run.damage);
  check_unchanged("norm_bias", norm_bias, p.norm_bias.data(), n, run.damage);
  return run;
}

Comparison compare(const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<double>& bound, size_t n) {
  Comparison c;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      const double error = std::fabs(g - w);
      ok = error <= bound[i];  // false for a NaN
      if (ok && bound[i] > 0) c.worst_ratio = std::max(c.worst_ratio, error / bound[i]);
    }
    if (ok) continue;
    if (c.bad++ == 0) {
      std::ostringstream out;
      out.precision(9);
      out << "row " << i / n << ", column " << i % n << ": got " << g << ", want " << w
          << ", |error| " << std::fabs(g - w) << " > tolerance " << bound[i];
      c.first = out.str();
    }
  }
  return c;
}

std::string check_fused_run(const FusedRun& run, const FusedReference& ref,
                            const FusedProblem& problem, const FusedSpec& spec, double* worst_y,
                            double* worst_sum) {
  const size_t n = problem.n;
  if (!run.status.is_ok()) return "rejected: " + run.status.message();
  if (!run.damage.empty()) return run.damage.front();
  const Comparison y = compare(run.y, ref.y, ref.y_bound, n);
  if (worst_y) *worst_y = std::max(*worst_y, y.worst_ratio);
  if (y.bad) return "y: " + std::to_string(y.bad) + " bad elements; first: " + y.first;
  if (writes_sum(spec.layout)) {
    const Comparison s = compare(run.sum, ref.t, ref.t_bound, n);
    if (worst_sum) *worst_sum = std::max(*worst_sum, s.worst_ratio);
    if (s.bad) return "sum_dst: " + std::to_string(s.bad) + " bad elements; first: " + s.first;
    // The epilogue alone: y against the reference norm and activation of the
    // fused call's own t.
    const std::vector<double> exact(problem.m * n, 0.0);
    const FusedReference own = epilogue_reference(run.sum, exact, problem.m, n, problem, spec);
    const Comparison e = compare(run.y, own.y, own.y_bound, n);
    if (e.bad) {
      return "y against the reference epilogue of the call's own sum_dst: " +
             std::to_string(e.bad) + " bad elements; first: " + e.first;
    }
  }
  return "";
}

PackedWeights pack_for(const FusedProblem& p, const LinearVariant& variant) {
  Expected<PackedWeights> packed = pack_weights(p.w.data(), p.n, p.k, variant);
  REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
  return std::move(packed).value();
}

}  // namespace normrt::testing
