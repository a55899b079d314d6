// Running one kernel call in guarded buffers and checking what it wrote:
// the half of norm_test_support.h that touches memory.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>

#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

// A quiet NaN with a recognisable payload: fills guard zones, row padding and
// not-yet-written outputs, so an element the kernel skips shows up as NaN and
// a statistic that reads padding turns NaN.
constexpr uint32_t kCanaryBits = 0x7fc0de5au;

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

// rows × stride floats starting `offset` floats past a 64-byte boundary, with
// 64 bytes of canaries before the boundary and after the last row.
class GuardedBuffer {
 public:
  GuardedBuffer(size_t rows, size_t n, size_t stride, size_t offset)
      : rows_(rows), n_(n), stride_(stride) {
    const size_t span = rows == 0 ? 0 : (rows - 1) * stride + n;
    // Slack of 16 floats to reach a 64-byte boundary inside the vector.
    storage_.assign(kAlignFloats + kGuardFloats + offset + span + kGuardFloats, canary());
    const auto address = reinterpret_cast<uintptr_t>(storage_.data());
    const size_t to_boundary = ((64 - address % 64) % 64) / sizeof(float);
    data_ = storage_.data() + to_boundary + kGuardFloats + offset;
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  float* data() { return data_; }
  float* row(size_t r) { return data_ + r * stride_; }
  size_t stride() const { return stride_; }

  void fill_rows(const std::vector<float>& dense) {
    for (size_t r = 0; r < rows_; ++r)
      std::memcpy(row(r), dense.data() + r * n_, n_ * sizeof(float));
  }
  std::vector<float> read_rows() {
    std::vector<float> dense(rows_ * n_);
    for (size_t r = 0; r < rows_; ++r)
      std::memcpy(dense.data() + r * n_, row(r), n_ * sizeof(float));
    return dense;
  }
  // True if every float outside the rows' n elements still holds the canary.
  bool guards_intact() const {
    const float* end = storage_.data() + storage_.size();
    const float* p = storage_.data();
    for (size_t r = 0; r < rows_; ++r) {
      const float* row_begin = data_ + r * stride_;
      for (; p < row_begin; ++p) {
        if (bits_of(*p) != kCanaryBits) return false;
      }
      p = row_begin + n_;
    }
    for (; p < end; ++p) {
      if (bits_of(*p) != kCanaryBits) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kAlignFloats = 16;
  static constexpr size_t kGuardFloats = 16;
  size_t rows_, n_, stride_;
  std::vector<float> storage_;
  float* data_ = nullptr;
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

CaseRun run_case(NormKernel kernel, const NormCase& c) {
  const size_t n = c.n;
  const bool has_residual = layout_has_residual(c.layout);
  GuardedBuffer src(c.rows, n, n + c.src_pad, c.src_offset);
  src.fill_rows(c.x);
  std::unique_ptr<GuardedBuffer> residual;
  if (has_residual) {
    residual = std::make_unique<GuardedBuffer>(c.rows, n, n + c.residual_pad, c.residual_offset);
    residual->fill_rows(c.residual);
  }
  const bool in_place = c.layout == Layout::kInPlace || c.layout == Layout::kResidualInPlace ||
                        c.layout == Layout::kResidualInPlaceNoSum;
  std::unique_ptr<GuardedBuffer> own_dst;
  if (!in_place) own_dst = std::make_unique<GuardedBuffer>(c.rows, n, n + c.dst_pad, c.dst_offset);
  GuardedBuffer* dst = in_place ? &src : own_dst.get();
  std::unique_ptr<GuardedBuffer> own_sum;
  GuardedBuffer* sum = nullptr;
  switch (c.layout) {
    case Layout::kResidualSumSeparate:
      own_sum = std::make_unique<GuardedBuffer>(c.rows, n, n + c.sum_pad, c.sum_offset);
      sum = own_sum.get();
      break;
    case Layout::kResidualSumIntoSrc:
      sum = &src;
      break;
    case Layout::kResidualSumIntoResidual:
    case Layout::kResidualInPlace:
      sum = residual.get();
      break;
    default:
      break;
  }
  std::unique_ptr<GuardedBuffer> gain, bias;
  if (!c.gain.empty()) {
    gain = std::make_unique<GuardedBuffer>(1, n, n, c.gain_offset);
    gain->fill_rows(c.gain);
  }
  if (!c.bias.empty()) {
    bias = std::make_unique<GuardedBuffer>(1, n, n, c.bias_offset);
    bias->fill_rows(c.bias);
  }

  NormRows rows;
  rows.rows = c.rows;
  rows.n = n;
  rows.src = src.data();
  rows.src_stride = src.stride();
  rows.dst = dst->data();
  rows.dst_stride = dst->stride();
  rows.gain = gain ? gain->data() : nullptr;
  rows.bias = bias ? bias->data() : nullptr;
  if (residual) {
    rows.residual = residual->data();
    rows.residual_stride = residual->stride();
  }
  if (sum != nullptr) {
    rows.sum_dst = sum->data();
    rows.sum_stride = sum->stride();
  }

  CaseRun run;
  const Status valid = norm_validate(c.params, rows);
  if (!valid.is_ok()) {
    run.rejected = valid.message().empty() ? "(empty message)" : valid.message();
    return run;
  }
  kernel(c.params, rows);

  run.y = dst->read_rows();
  if (sum != nullptr) run.sum = sum->read_rows();
  auto check_guards = [&run](GuardedBuffer* buffer, const char* name) {
    if (buffer != nullptr && !buffer->guards_intact()) {
      run.damage.push_back(std::string("wrote outside the rows of ") + name);
    }
  };
  check_guards(&src, "src");
  check_guards(own_dst.get(), "dst");
  check_guards(residual.get(), "residual");
  check_guards(own_sum.get(), "sum_dst");
  check_guards(gain.get(), "gain");
  check_guards(bias.get(), "bias");
  if (!in_place && sum != &src && !same_bits(src.read_rows(), c.x)) {
    run.damage.push_back("changed src, which is neither dst nor sum_dst");
  }
  if (residual && sum != residual.get() && !same_bits(residual->read_rows(), c.residual)) {
    run.damage.push_back("changed residual, which is not sum_dst");
  }
  if (gain && !same_bits(gain->read_rows(), c.gain)) run.damage.push_back("changed gain");
  if (bias && !same_bits(bias->read_rows(), c.bias)) run.damage.push_back("changed bias");
  return run;
}

std::string check_run(const NormCase& c, const CaseRun& run, const std::vector<OracleRow>& oracle,
                      double tolerance, NeededTolerance* needed) {
  if (!run.rejected.empty()) return "norm_validate rejected a valid case: " + run.rejected;
  std::string problem;
  for (size_t r = 0; r < c.rows; ++r) {
    const RowComparison cmp = compare_row(run.y.data() + r * c.n, oracle[r], c.n, tolerance);
    if (needed != nullptr) needed->raise_to(cmp.needed);
    if (cmp.bad_count > 0 && problem.empty()) {
      problem = "dst row " + std::to_string(r) + ", " + describe_mismatch(cmp, tolerance);
    }
  }
  if (!problem.empty()) return problem;
  if (layout_writes_sum(c.layout)) {
    const std::vector<float> s = summed_input(c);
    for (size_t i = 0; i < s.size(); ++i) {
      if (bits_of(run.sum[i]) != bits_of(s[i])) {
        std::ostringstream os;
        os.precision(9);
        os << "sum_dst row " << i / c.n << ", index " << i % c.n << ": got " << run.sum[i]
           << " want x + r = " << s[i] << " (must be bit-equal)";
        return os.str();
      }
    }
  }
  if (!run.damage.empty()) return run.damage.front();
  return "";
}

std::vector<float> run_simple(NormKernel kernel, const NormCase& c) {
  const CaseRun run = run_case(kernel, c);
  INFO(describe(c));
  REQUIRE_MESSAGE(run.rejected.empty(), "norm_validate rejected a valid case: " << run.rejected);
  REQUIRE_MESSAGE(run.damage.empty(), (run.damage.empty() ? "" : run.damage.front()));
  return run.y;
}

void check_on_every_variant(const NormCase& c, double tolerance) {
  const std::vector<OracleRow> oracle = oracle_case(c);
  for (const NormVariant* variant : norm_variants_under_test()) {
    const CaseRun run = run_case(variant->kernel, c);
    const std::string problem = check_run(c, run, oracle, tolerance, nullptr);
    CHECK_MESSAGE(problem.empty(),
                  "variant=" << variant->name << " " << describe(c) << ": " << problem);
  }
}
}  // namespace normrt::testing
