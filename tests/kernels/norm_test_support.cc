// Names, descriptions, the oracle of a case, comparison and failure logging
// (running a case lives in norm_case_runner.cc).

#include "tests/kernels/norm_test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace normrt::testing {

std::vector<const NormVariant*> norm_variants_under_test() {
  return variants_under_test(norm_variants());
}

bool quick_mode() {
  static const bool quick = [] {
    const char* value = std::getenv("NORMRT_TEST_QUICK");
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
  }();
  return quick;
}

std::string isa_label(Isa isa) { return isa_name(isa); }

std::string kind_name(NormKind kind) {
  switch (kind) {
    case NormKind::kLayerNorm:
      return "layer_norm";
    case NormKind::kRmsNorm:
      return "rms_norm";
    case NormKind::kRmsNormPartial:
      return "rms_norm_partial";
  }
  return "?";
}

std::string placement_name(EpsPlacement placement) {
  return placement == EpsPlacement::kInsideSqrt ? "inside_sqrt" : "added_to_rms";
}

std::string convention_name(GainConvention convention) {
  return convention == GainConvention::kAsStored ? "g" : "1+g";
}

std::string layout_name(Layout layout) {
  switch (layout) {
    case Layout::kSeparate:
      return "separate";
    case Layout::kInPlace:
      return "in_place";
    case Layout::kResidualSumSeparate:
      return "residual,sum_dst_separate";
    case Layout::kResidualSumIntoSrc:
      return "residual,sum_dst==src";
    case Layout::kResidualSumIntoResidual:
      return "residual,sum_dst==residual";
    case Layout::kResidualNoSum:
      return "residual,sum_dst_null";
    case Layout::kResidualInPlace:
      return "residual,dst==src,sum_dst==residual";
    case Layout::kResidualInPlaceNoSum:
      return "residual,dst==src,sum_dst_null";
  }
  return "?";
}

bool layout_has_residual(Layout layout) {
  return layout != Layout::kSeparate && layout != Layout::kInPlace;
}

bool layout_writes_sum(Layout layout) {
  return layout_has_residual(layout) && layout != Layout::kResidualNoSum &&
         layout != Layout::kResidualInPlaceNoSum;
}

std::string describe(const NormCase& c) {
  std::ostringstream os;
  os << kind_name(c.params.kind);
  if (c.params.kind == NormKind::kRmsNormPartial) os << " p=" << c.params.partial_fraction;
  os << " n=" << c.n << " rows=" << c.rows << " eps=" << c.params.eps << " ("
     << placement_name(c.params.eps_placement)
     << ") gain=" << (c.gain.empty() ? "none" : convention_name(c.params.gain_convention))
     << " bias=" << (c.bias.empty() ? "none" : "yes") << " layout=" << layout_name(c.layout)
     << " strides=n+" << c.src_pad << "/n+" << c.dst_pad << " offsets=" << c.src_offset << "/"
     << c.dst_offset << "/" << c.residual_offset << "/" << c.sum_offset;
  return os.str();
}

std::vector<float> summed_input(const NormCase& c) {
  if (!layout_has_residual(c.layout)) return c.x;
  std::vector<float> s(c.x.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = c.x[i] + c.residual[i];
  return s;
}

std::vector<OracleRow> oracle_case(const NormCase& c) {
  const std::vector<float> s = summed_input(c);
  std::vector<OracleRow> rows(c.rows);
  for (size_t r = 0; r < c.rows; ++r) {
    oracle_norm_row(c.params, c.n, s.data() + r * c.n, c.gain.empty() ? nullptr : c.gain.data(),
                    c.bias.empty() ? nullptr : c.bias.data(), rows[r]);
  }
  return rows;
}

void NeededTolerance::raise_to(const NeededTolerance& other) {
  if (!(other.with_centering <= with_centering)) with_centering = other.with_centering;
  if (!(other.strict <= strict)) strict = other.strict;
}

RowComparison compare_row(const float* got, const OracleRow& want, size_t n, double tolerance) {
  RowComparison result;
  for (size_t i = 0; i < n; ++i) {
    const long double error = std::fabs(static_cast<long double>(got[i]) - want.y[i]);
    const long double scale = want.scale[i] + want.centering[i];
    const long double bound = tolerance * scale + kAbsoluteFloor;
    if (error > kAbsoluteFloor) {
      const long double excess = error - kAbsoluteFloor;
      NeededTolerance needed;
      needed.with_centering = scale > 0 ? excess / scale : INFINITY;
      needed.strict = want.scale[i] > 0 ? excess / want.scale[i] : INFINITY;
      result.needed.raise_to(needed);
    }
    if (!(error <= bound)) {  // also catches NaN
      if (result.bad_count == 0) {
        result.first_bad = i;
        result.got = got[i];
        result.want = want.y[i];
        result.error = error;
        result.bound = bound;
      }
      ++result.bad_count;
    }
  }
  return result;
}

std::string describe_mismatch(const RowComparison& comparison, double tolerance) {
  std::ostringstream os;
  os.precision(9);
  os << "index " << comparison.first_bad << ": got " << comparison.got << " want "
     << static_cast<double>(comparison.want) << " |error| " << static_cast<double>(comparison.error)
     << " > bound " << static_cast<double>(comparison.bound) << " (tolerance " << tolerance << "; "
     << comparison.bad_count << " element(s) out of bound)";
  return os.str();
}

void FailureLog::record(const std::string& message) {
  ++count_;
  if (count_ <= max_reported_) FAIL_CHECK(message);
}

std::vector<float> normal_floats(std::mt19937& rng, size_t count, float mean, float stddev) {
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

std::vector<float> uniform_floats(std::mt19937& rng, size_t count, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (float& f : v) f = dist(rng);
  return v;
}

NormCase simple_case(const NormParams& params, size_t n, std::vector<float> x,
                     std::vector<float> gain, std::vector<float> bias) {
  NormCase c;
  c.params = params;
  c.n = n;
  c.rows = x.size() / n;
  c.x = std::move(x);
  c.gain = std::move(gain);
  c.bias = std::move(bias);
  return c;
}

}  // namespace normrt::testing
