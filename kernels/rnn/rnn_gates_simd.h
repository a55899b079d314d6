#pragma once
// The SIMD element-wise passes of the recurrent cells (rnn_gates.h),
// templated on the xsimd architecture. Included only by the per-ISA
// translation units (rnn_gates_<isa>.cc), which instantiate it with their
// compile flags; the anonymous namespace keeps each copy private.
//
// Every pass streams its operands once, a vector of hidden units at a time:
// the gates of one vector are computed from the projections while in
// registers, with the activations of activation_simd.h (activation.h's
// accuracy), and only the state and the output are stored. The last partial
// vector is read with zero fill, which makes its unused lanes of c exactly 0
// (σ(0)·0 + σ(0)·tanh(0)), so they add nothing to the statistics.

#include <cstddef>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation_simd.h"
#include "kernels/rnn/rnn_gates.h"
#include "kernels/simd/partial.h"

namespace normrt::detail {
namespace {

template <class Arch>
struct RnnGatesSimd {
  using V = xsimd::batch<float, Arch>;
  static constexpr size_t kWidth = V::size;

  static V sigmoid(V v) { return simd::activate<Activation::kSigmoid>(v); }
  static V tanh(V v) { return simd::activate<Activation::kTanh>(v); }
  static V fma(V a, V b, V c) { return simd::mul_add<Arch>(a, b, c); }

  // A whole vector at p, or the first `count` elements (zero fill).
  template <bool kFull>
  static V load(const float* p, size_t count) {
    if constexpr (kFull) {
      return V::load_unaligned(p);
    } else {
      return simd::load_partial(Arch{}, p, count, 0.0f);
    }
  }
  template <bool kFull>
  static void store(float* p, size_t count, V v) {
    if constexpr (kFull) {
      v.store_unaligned(p);
    } else {
      simd::store_partial(Arch{}, p, count, v);
    }
  }

  // body(j, kFull, count) for the vectors of [begin, end): whole ones, then
  // the remainder as one partial vector.
  template <class Body>
  static void for_vectors(size_t begin, size_t end, Body&& body) {
    size_t j = begin;
    for (; j + kWidth <= end; j += kWidth) body(j, std::true_type{}, kWidth);
    if (j < end) body(j, std::false_type{}, end - j);
  }

  enum class Stats { kNone, kSquares, kSumAndSquares };

  // Pass 1 over hidden units [begin, end), gathering kStats of c.
  template <Stats kStats, bool kCellNormalized>
  static void lstm_range(const LstmGateArgs& a, size_t begin, size_t end, V& sum, V& sum_sq) {
    const size_t hidden = a.hidden;
    for_vectors(begin, end, [&](size_t j, auto full, size_t count) {
      constexpr bool kFull = decltype(full)::value;
      auto gate = [&](size_t q) {
        return load<kFull>(a.hproj + q * hidden + j, count) +
               load<kFull>(a.xproj + q * hidden + j, count);
      };
      const V f = sigmoid(gate(0));
      const V i = sigmoid(gate(1));
      const V o = sigmoid(gate(2));
      const V g = tanh(gate(3));
      const V c = fma(f, load<kFull>(a.c_prev + j, count), i * g);
      store<kFull>(a.c + j, count, c);
      if constexpr (kStats == Stats::kSumAndSquares) sum += c;
      if constexpr (kStats != Stats::kNone) sum_sq = fma(c, c, sum_sq);
      if constexpr (kCellNormalized) {
        store<kFull>(a.h + j, count, o);
      } else {
        store<kFull>(a.h + j, count, o * tanh(c));
      }
    });
  }

  static CellSums lstm_gates(const LstmGateArgs& a) {
    V sum(0.0f), sum_sq(0.0f);
    const size_t hidden = a.hidden;
    if (!a.cell_normalized) {
      lstm_range<Stats::kNone, false>(a, 0, hidden, sum, sum_sq);
      return {};
    }
    if (a.centered) {
      lstm_range<Stats::kSumAndSquares, true>(a, 0, hidden, sum, sum_sq);
    } else {  // RMSNorm family: Σ c² over the first stat_count units only
      lstm_range<Stats::kSquares, true>(a, 0, a.stat_count, sum, sum_sq);
      lstm_range<Stats::kNone, true>(a, a.stat_count, hidden, sum, sum_sq);
    }
    return {xsimd::hadd(sum), xsimd::hadd(sum_sq)};
  }

  template <bool kGain, bool kBias>
  static void lstm_output_impl(const float* c, float* h, size_t n, const NormScale& map,
                               const float* gain, const float* bias) {
    const V hi(map.mean_hi), lo(map.mean_lo), scale(map.scale);
    for_vectors(0, n, [&](size_t j, auto full, size_t count) {
      constexpr bool kFull = decltype(full)::value;
      const V v = (load<kFull>(c + j, count) - hi) - lo;
      V factor = scale;
      if constexpr (kGain) factor *= load<kFull>(gain + j, count);
      V y;
      if constexpr (kBias) {
        y = fma(v, factor, load<kFull>(bias + j, count));
      } else {
        y = v * factor;
      }
      store<kFull>(h + j, count, load<kFull>(h + j, count) * tanh(y));
    });
  }

  static void lstm_output(const float* c, float* h, size_t n, const NormScale& map,
                          const float* gain, const float* bias) {
    if (gain != nullptr && bias != nullptr)
      return lstm_output_impl<true, true>(c, h, n, map, gain, bias);
    if (gain != nullptr) return lstm_output_impl<true, false>(c, h, n, map, gain, bias);
    if (bias != nullptr) return lstm_output_impl<false, true>(c, h, n, map, gain, bias);
    lstm_output_impl<false, false>(c, h, n, map, gain, bias);
  }

  static void gru_gates(const GruGateArgs& a) {
    const size_t hidden = a.hidden;
    for_vectors(0, hidden, [&](size_t j, auto full, size_t count) {
      constexpr bool kFull = decltype(full)::value;
      auto in = [&](const float* base, size_t q) {
        return load<kFull>(base + q * hidden + j, count);
      };
      const V z = sigmoid(in(a.hproj, 0) + in(a.xproj, 0));
      const V r = sigmoid(in(a.hproj, 1) + in(a.xproj, 1));
      const V candidate = tanh(fma(r, in(a.hproj, 2), in(a.xproj, 2)));
      const V h_prev = load<kFull>(a.h_prev + j, count);
      store<kFull>(a.h + j, count, fma(z, candidate - h_prev, h_prev));
    });
  }

  static const RnnGateOps& ops() {
    static const RnnGateOps table = {lstm_gates, lstm_output, gru_gates};
    return table;
  }
};

}  // namespace
}  // namespace normrt::detail
