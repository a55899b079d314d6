#include "bench/rnn_bench_cells.h"

namespace normrt::bench {

// Element-wise helpers of the separate path, one sweep each.
void add(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void sub(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
}
void mul(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void check(const Status& s, benchmark::State& state) {
  if (!s) state.SkipWithError(s.message().c_str());
}

// A randomly initialized vector with the given mean and spread.
AlignedBuffer filled(size_t n, float mean, float stddev, uint32_t seed) {
  AlignedBuffer b(n);
  b.fill_normal(mean, stddev, seed);
  return b;
}

// h-like values in (-1, 1).
AlignedBuffer hidden_state(size_t n, uint32_t seed) {
  AlignedBuffer b = filled(n, 0.0f, 1.0f, seed);
  for (size_t i = 0; i < n; ++i) b.data()[i] = std::tanh(b.data()[i]);
  return b;
}

NormRows row(const float* src, float* dst, size_t n, const float* gain, const float* bias) {
  NormRows r;
  r.n = n;
  r.src = src;
  r.dst = dst;
  r.gain = gain;
  r.bias = bias;
  return r;
}

std::string name(const char* impl, const char* cell, WeightType type, size_t h) {
  return std::string(impl) + "/" + cell + "/" + weight_type_name(type) + "/" + std::to_string(h);
}

}  // namespace normrt::bench
