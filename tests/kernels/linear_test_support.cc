#include "tests/kernels/linear_test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

namespace normrt::testing {
namespace {

constexpr uint32_t kCanaryBits = 0x7fc0de5au;  // a quiet NaN with a recognisable payload
constexpr size_t kAlignFloats = 16;            // 64 bytes
constexpr size_t kGuardFloats = 16;

float canary() {
  float f;
  std::memcpy(&f, &kCanaryBits, sizeof f);
  return f;
}

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// First element of `storage` on a 64-byte boundary.
float* aligned_start(std::vector<float>& storage) {
  const auto address = reinterpret_cast<uintptr_t>(storage.data());
  const size_t skip = ((64 - address % 64) % 64) / sizeof(float);
  return storage.data() + skip;
}

}  // namespace

std::vector<const LinearVariant*> runnable_variants() {
  std::vector<const LinearVariant*> variants;
  for (const LinearVariant& v : linear_variants()) {
    if (linear_variant_runnable(v) && !v.rounds_x_to_bf16) variants.push_back(&v);
  }
  return variants;
}

bool linear_quick_mode() {
  const char* quick = std::getenv("NORMRT_TEST_QUICK");
  return quick != nullptr && std::string(quick) == "1";
}

float oracle_bf16_round(float value) {
  if (std::isnan(value)) return value;
  // The bf16 neighbours: truncation toward zero, and one bf16 ulp further out.
  const uint32_t bits = bits_of(value);
  const float down = float_of(bits & 0xffff0000u);
  if (down == value || std::isinf(value)) return value;
  const float up = float_of((bits & 0xffff0000u) + 0x10000u);  // may be ±inf: correct overflow
  const double below = std::fabs(static_cast<double>(value) - down);
  // Distance to `up` computed as one bf16 ulp minus `below`, so it stays finite.
  const int exponent = std::max(-126, std::ilogb(down == 0.0f ? value : down));
  const double ulp = std::ldexp(1.0, exponent - 7);  // bf16: 8 significant bits
  const double above = ulp - below;
  if (below < above) return down;
  if (above < below) return up;
  return ((bits >> 16) & 1u) == 0 ? down : up;  // tie: the even one
}

OracleInt8Row oracle_quantize_int8(const float* v, size_t count) {
  OracleInt8Row row;
  row.q.assign(count, 0);
  float max_abs = 0.0f;
  bool finite = true;
  for (size_t i = 0; i < count; ++i) {
    finite = finite && std::isfinite(v[i]);
    max_abs = std::max(max_abs, std::fabs(v[i]));
  }
  if (!finite) {
    row.scale = std::numeric_limits<float>::quiet_NaN();
    return row;
  }
  if (max_abs < 127.0f * std::numeric_limits<float>::min()) return row;  // counts as zero
  row.scale = max_abs / 127.0f;
  const float inverse = 127.0f / max_abs;
  for (size_t i = 0; i < count; ++i) {
    const float product = v[i] * inverse;  // one float product, then ties-to-even
    const float rounded = std::nearbyint(product);
    row.q[i] = static_cast<int8_t>(std::clamp(rounded, -127.0f, 127.0f));
  }
  return row;
}

OracleInt8Row oracle_quantize_int8_activations(const float* v, size_t count) {
  OracleInt8Row row;
  row.q.assign(count, 0);
  float lo = 0.0f, hi = 0.0f;
  for (size_t i = 0; i < count; ++i) {
    if (!std::isfinite(v[i])) {
      row.scale = std::numeric_limits<float>::quiet_NaN();
      return row;
    }
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  const double range = double{hi} - double{lo};
  if (range < 254.0 * std::numeric_limits<float>::min()) return row;  // counts as zero
  row.scale = static_cast<float>(range / 254.0);
  const float inverse = static_cast<float>(254.0 / range);
  const float low = lo * inverse;  // one float product, then ties-to-even
  row.zero_point = std::clamp(-127 - static_cast<int>(std::nearbyint(low)), -127, 127);
  for (size_t i = 0; i < count; ++i) {
    const float rounded = std::nearbyint(v[i] * inverse);
    row.q[i] =
        static_cast<int8_t>(std::clamp(static_cast<int>(rounded) + row.zero_point, -127, 127));
  }
  return row;
}

LinearProblem make_problem(size_t m, size_t n, size_t k, WeightType type, bool with_bias,
                           uint32_t seed) {
  LinearProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.type = type;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  // Mostly ±1, with one value in 32 scaled up to ±64: outliers, as real
  // activations and weights have.
  auto draw = [&] { return (gen() % 32 == 0 ? 64.0f : 1.0f) * unit(gen); };
  p.w.resize(n * k);
  p.x.resize(m * k);
  for (float& v : p.w) v = draw();
  for (float& v : p.x) v = draw();
  if (with_bias) {
    p.bias.resize(n);
    for (float& v : p.bias) v = draw();
  }
  p.expected.assign(m * n, 0.0);
  p.scale.assign(m * n, 0.0);
  if (type == WeightType::kInt8) {
    std::vector<OracleInt8Row> wq, xq;
    for (size_t c = 0; c < n; ++c) wq.push_back(oracle_quantize_int8(&p.w[c * k], k));
    for (size_t r = 0; r < m; ++r) xq.push_back(oracle_quantize_int8_activations(&p.x[r * k], k));
    for (size_t r = 0; r < m; ++r) {
      for (size_t c = 0; c < n; ++c) {
        int64_t acc = 0, magnitude = 0;
        for (size_t i = 0; i < k; ++i) {
          const int64_t term = (xq[r].q[i] - xq[r].zero_point) * wq[c].q[i];
          acc += term;
          magnitude += std::abs(term);
        }
        const double s = static_cast<double>(xq[r].scale) * wq[c].scale;
        const double b = with_bias ? p.bias[c] : 0.0;
        p.expected[r * n + c] = static_cast<double>(acc) * s + b;
        p.scale[r * n + c] = static_cast<double>(magnitude) * s + std::fabs(b);
      }
    }
    return p;
  }
  recompute_float_oracle(p);
  return p;
}

void recompute_float_oracle(LinearProblem& p) {
  const size_t m = p.m, n = p.n, k = p.k;
  const bool with_bias = !p.bias.empty();
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < n; ++c) {
      double sum = with_bias ? p.bias[c] : 0.0;
      double scale = with_bias ? std::fabs(p.bias[c]) : 0.0;
      for (size_t i = 0; i < k; ++i) {
        const float w =
            p.type == WeightType::kBF16 ? oracle_bf16_round(p.w[c * k + i]) : p.w[c * k + i];
        const double term = static_cast<double>(w) * p.x[r * k + i];
        sum += term;
        scale += std::fabs(term);
      }
      p.expected[r * n + c] = sum;
      p.scale[r * n + c] = scale;
    }
  }
}

GuardedOutput::GuardedOutput(size_t m, size_t stride, size_t offset)
    : m_(m), stride_(stride), offset_(offset) {
  const size_t span = m == 0 ? 0 : (m - 1) * stride + stride;
  storage_.assign(kAlignFloats + kGuardFloats + offset + span + kGuardFloats, canary());
  data_ = aligned_start(storage_) + kGuardFloats + offset;
}

bool GuardedOutput::untouched(size_t row, size_t col) const {
  return bits_of(at(row, col)) == kCanaryBits;
}

bool GuardedOutput::guards_intact() const {
  for (size_t i = 1; i <= kGuardFloats; ++i) {
    if (bits_of(data_[-static_cast<ptrdiff_t>(i)]) != kCanaryBits) return false;
    if (bits_of(data_[m_ * stride_ + i - 1]) != kCanaryBits) return false;
  }
  return true;
}

const float* place_rows(const std::vector<float>& x, size_t m, size_t k, size_t stride,
                        size_t offset, std::vector<float>& storage) {
  storage.assign(kAlignFloats + offset + m * stride + kGuardFloats, canary());
  float* start = aligned_start(storage) + offset;
  for (size_t r = 0; r < m; ++r)
    std::memcpy(start + r * stride, x.data() + r * k, k * sizeof(float));
  return start;
}

std::string check_output(const LinearProblem& p, const GuardedOutput& y, size_t n_begin,
                         size_t n_end) {
  std::ostringstream fail;
  if (!y.guards_intact()) return "a write before or after y's rows (guard zone changed)";
  for (size_t r = 0; r < p.m; ++r) {
    for (size_t c = 0; c < p.n; ++c) {
      const bool in_range = c >= n_begin && c < n_end;
      if (!in_range) {
        if (!y.untouched(r, c)) {
          fail << "row " << r << ", column " << c << " is outside [" << n_begin << ", " << n_end
               << ") but was written (" << y.at(r, c) << ")";
          return fail.str();
        }
        continue;
      }
      const double want = p.expected[r * p.n + c];
      const double got = y.at(r, c);
      const double tolerance = kLinearTolerance * p.scale[r * p.n + c] + kLinearAbsoluteFloor;
      if (!(std::fabs(got - want) <= tolerance)) {
        fail.precision(9);
        fail << "row " << r << ", column " << c << ": got " << got << ", expected " << want
             << ", |error| " << std::fabs(got - want) << " > tolerance " << tolerance
             << " (1e-5 * sum|w*x| " << p.scale[r * p.n + c] << ")";
        return fail.str();
      }
    }
  }
  return "";
}

std::string variant_label(const LinearVariant& v) { return v.name; }

}  // namespace normrt::testing
