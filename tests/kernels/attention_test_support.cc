#include "tests/kernels/attention_test_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

namespace normrt::testing {
namespace {

constexpr float kCanary = -12345.5f;
constexpr size_t kGuard = 32;  // floats of canary before and after every operand

// An operand of (batch, rows, width) floats laid out with strides in a
// canary-filled buffer, its base `misalign` floats past a 64-byte boundary.
struct Placed {
  std::vector<float> storage;
  float* base = nullptr;
  size_t row_stride = 0, batch_stride = 0;
};

Placed place(const std::vector<float>& dense, size_t batch, size_t rows, size_t width,
             const AttentionLayout& layout) {
  Placed p;
  p.row_stride = width + layout.pad;
  p.batch_stride = rows * p.row_stride + layout.batch_pad;
  const size_t span = batch * p.batch_stride;
  p.storage.assign(span + 2 * kGuard + 16 + layout.misalign, kCanary);
  const uintptr_t start = reinterpret_cast<uintptr_t>(p.storage.data() + kGuard);
  const uintptr_t aligned = (start + 63) / 64 * 64;
  p.base = reinterpret_cast<float*>(aligned) + layout.misalign;
  for (size_t b = 0; b < batch; ++b) {
    for (size_t r = 0; r < rows; ++r) {
      if (width == 0) continue;
      std::memcpy(p.base + b * p.batch_stride + r * p.row_stride,
                  dense.data() + (b * rows + r) * width, width * sizeof(float));
    }
  }
  return p;
}

bool env_set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

}  // namespace

std::vector<const AttentionVariant*> attention_variants_under_test() {
  const std::vector<const AttentionVariant*> out = variants_under_test(attention_variants());
  const char* forced = std::getenv("NORMRT_ISA");
  if (out.empty()) {
    static bool noted = false;
    if (!noted) {
      std::cout << "attention tests: NORMRT_ISA=" << (forced ? forced : "")
                << " has no attention variant runnable on this CPU; skipped\n";
      noted = true;
    }
  }
  return out;
}

bool attention_quick_mode() { return env_set("NORMRT_TEST_QUICK"); }

AttentionData random_attention(const AttentionParams& params, size_t batch, size_t query_rows,
                               size_t key_rows, uint64_t seed, float qk_range) {
  AttentionData data;
  data.params = params;
  data.batch = batch;
  data.query_rows = query_rows;
  data.key_rows = key_rows;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> qk(-qk_range, qk_range), v(-1.0f, 1.0f);
  data.q.resize(batch * query_rows * params.heads * params.head_dim);
  data.k.resize(batch * key_rows * params.kv_heads * params.head_dim);
  data.v.resize(data.k.size());
  for (float& x : data.q) x = qk(rng);
  for (float& x : data.k) x = qk(rng);
  for (float& x : data.v) x = v(rng);
  return data;
}

AttentionResult run_attention(AttentionKernel kernel, const AttentionData& data,
                              const AttentionLayout& layout, ThreadPool* pool) {
  const AttentionParams& p = data.params;
  const size_t q_cols = p.heads * p.head_dim, kv_cols = p.kv_heads * p.head_dim;
  const Placed q = place(data.q, data.batch, data.query_rows, q_cols, layout);
  const Placed k = place(data.k, data.batch, data.key_rows, kv_cols, layout);
  const Placed v = place(data.v, data.batch, data.key_rows, kv_cols, layout);
  const std::vector<float> nothing(data.batch * data.query_rows * q_cols, kCanary);
  Placed out = place(nothing, data.batch, data.query_rows, q_cols, layout);
  const size_t bias_stride = data.position_bias_head_stride;
  const Placed bias = place(data.position_bias, 1, data.position_bias.empty() ? 0 : p.heads,
                            bias_stride, {0, 0, layout.misalign});

  AttentionArgs a;
  a.batch = data.batch;
  a.query_rows = data.query_rows;
  a.key_rows = data.key_rows;
  a.q = q.base;
  a.q_row_stride = q.row_stride;
  a.q_batch_stride = q.batch_stride;
  a.k = k.base;
  a.v = v.base;
  a.kv_row_stride = k.row_stride;
  a.kv_batch_stride = k.batch_stride;
  a.out = out.base;
  a.out_row_stride = out.row_stride;
  a.out_batch_stride = out.batch_stride;
  a.key_lengths = data.key_lengths.empty() ? nullptr : data.key_lengths.data();
  a.key_mask = data.key_mask.empty() ? nullptr : data.key_mask.data();
  a.key_mask_stride = data.key_rows;
  a.query_position = data.query_position;
  if (!data.position_bias.empty()) {
    a.position_bias = bias.base;
    a.position_bias_head_stride = bias_stride;
    a.position_bias_zero = data.position_bias_zero;
  }
  attention_run(kernel, p, a, pool);

  AttentionResult result;
  result.out.resize(nothing.size());
  // Gather out's rows, then check that every other float kept its canary.
  std::vector<bool> is_out(out.storage.size(), false);
  for (size_t b = 0; b < data.batch; ++b) {
    for (size_t i = 0; i < data.query_rows; ++i) {
      const float* row = out.base + b * out.batch_stride + i * out.row_stride;
      std::memcpy(result.out.data() + (b * data.query_rows + i) * q_cols, row,
                  q_cols * sizeof(float));
      const size_t at = static_cast<size_t>(row - out.storage.data());
      for (size_t c = 0; c < q_cols; ++c) is_out[at + c] = true;
    }
  }
  for (size_t i = 0; i < out.storage.size(); ++i) {
    if (!is_out[i] && !(out.storage[i] == kCanary)) {
      std::ostringstream s;
      s << "wrote " << out.storage[i] << " at float " << i << " of out's buffer, outside its rows";
      result.stray_write = s.str();
      break;
    }
  }
  return result;
}

std::vector<float> run_attention_split(AttentionKernel kernel, const AttentionData& data,
                                       size_t parts) {
  AttentionArgs a;
  a.batch = data.batch;
  a.query_rows = data.query_rows;
  a.key_rows = data.key_rows;
  a.q = data.q.data();
  a.k = data.k.data();
  a.v = data.v.data();
  a.key_lengths = data.key_lengths.empty() ? nullptr : data.key_lengths.data();
  a.key_mask = data.key_mask.empty() ? nullptr : data.key_mask.data();
  a.key_mask_stride = data.key_rows;
  a.query_position = data.query_position;
  if (!data.position_bias.empty()) {
    a.position_bias = data.position_bias.data();
    a.position_bias_head_stride = data.position_bias_head_stride;
    a.position_bias_zero = data.position_bias_zero;
  }
  a = attention_dense(data.params, a);
  std::vector<float> out(data.q.size(), kCanary);
  a.out = out.data();
  for (size_t part = 0; part < parts; ++part) kernel(data.params, a, part, parts);
  return out;
}

std::string compare_attention(const AttentionData& data, const AttentionExpected& expected,
                              const std::vector<float>& out, double* worst) {
  const size_t d = data.params.head_dim, heads = data.params.heads;
  double worst_ratio = 0.0;
  std::string failure;
  for (size_t at = 0; at < out.size(); ++at) {
    const long double want = expected.out[at], tol = expected.tolerance[at];
    const long double error = std::fabs(static_cast<long double>(out[at]) - want);
    const bool ok = tol == 0.0L ? out[at] == 0.0f : error <= tol;
    if (tol > 0.0L) worst_ratio = std::max(worst_ratio, static_cast<double>(error / tol));
    if (!ok && failure.empty()) {
      const size_t row = at / (heads * d);
      std::ostringstream s;
      s.precision(9);
      s << "sequence " << row / data.query_rows << ", query row " << row % data.query_rows
        << ", head " << at / d % heads << ", column " << at % d << ": got " << out[at] << ", want "
        << static_cast<double>(want) << ", |error| " << static_cast<double>(error)
        << " > tolerance " << static_cast<double>(tol) << " ("
        << expected.visible_keys[row * heads + at / d % heads] << " visible keys)";
      failure = s.str();
    }
  }
  if (worst != nullptr) *worst = worst_ratio;
  return failure;
}

std::string describe(const AttentionData& data) {
  const AttentionParams& p = data.params;
  std::ostringstream s;
  s << "d=" << p.head_dim << " heads=" << p.heads << "/" << p.kv_heads << " batch=" << data.batch
    << " query_rows=" << data.query_rows << " key_rows=" << data.key_rows
    << (p.causal ? " causal position=" + std::to_string(data.query_position) : "")
    << (data.key_lengths.empty() ? "" : " key_lengths")
    << (data.key_mask.empty() ? "" : " key_mask")
    << (data.position_bias.empty() ? "" : " position_bias") << " scale=" << p.scale;
  return s.str();
}

}  // namespace normrt::testing
