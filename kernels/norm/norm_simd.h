#pragma once
// The SIMD normalization kernel, templated on the xsimd architecture. Included
// only by the per-ISA translation units (norm_<isa>.cc), which instantiate it
// with their compile flags; the anonymous namespace keeps each copy private.
//
// Per row, two sweeps over data that stays in L1/L2:
//   1. statistics, fused with s = x + r when there is a residual: Σ s and
//      Σ s² (LayerNorm; an extra sweep around the mean when |mean| >> std
//      would make E[s²] - E[s]² cancel), or the sum of squares over the first
//      k elements (RMSNorm family);
//   2. y = (x - mean) * scale * g' + b, one reciprocal square root per row.
// Several independent accumulators keep the reductions off a single dependency
// chain. Rows whose float statistics would overflow or lose precision to
// underflow are recomputed by the double reference.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/activation/activation_simd.h"
#include "kernels/norm/norm_row_ops.h"
#include "kernels/norm/norm_statistics.h"
#include "kernels/norm/norm_variants.h"
#include "kernels/simd/partial.h"

namespace normrt::detail {
namespace {

template <class F>
void with_flag(bool flag, F&& f) {
  if (flag) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

template <class Arch, size_t kLanes>
struct NormSimd {
  using V = xsimd::batch<float, Arch>;
  static constexpr size_t kWidth = V::size;

  static V load(const float* x) { return V::load_unaligned(x); }

  // Pins v to a register. A statistic that uses a loaded vector twice
  // (Σ s and Σ s²) would otherwise let GCC fold the load into both
  // instructions and read the row twice: loads are what bounds these sweeps.
  static V in_register(V v) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    asm("" : "+v"(v.data));
#elif defined(__GNUC__) && defined(__aarch64__)
    asm("" : "+w"(v.data));
#endif
    return v;
  }
  static V load_tail(const float* x, size_t count, float fill) {
    return simd::load_partial(Arch{}, x, count, fill);
  }

  // Visits [0, n): full(i, lane) for each whole vector at i, consecutive
  // vectors spread over kLanes accumulator lanes; then tail(i, count) once.
  template <class Full, class Tail>
  static void for_vectors(size_t n, Full&& full, Tail&& tail) {
    size_t i = 0;
    for (; i + kLanes * kWidth <= n; i += kLanes * kWidth) {
#pragma GCC unroll 16
      for (size_t lane = 0; lane < kLanes; ++lane) full(i + lane * kWidth, lane);
    }
    for (; i + kWidth <= n; i += kWidth) full(i, 0);
    if (i < n) tail(i, n - i);
  }

  // Pairwise sum of acc[kBegin .. kBegin + kCount): a tree of constant
  // indices, so the accumulators stay in registers.
  template <size_t kBegin, size_t kCount>
  static V sum_lanes(const V (&acc)[kLanes]) {
    if constexpr (kCount == 1) {
      return acc[kBegin];
    } else {
      return sum_lanes<kBegin, kCount / 2>(acc) +
             sum_lanes<kBegin + kCount / 2, kCount - kCount / 2>(acc);
    }
  }

  static void set_zero(V (&acc)[kLanes]) {
#pragma GCC unroll 16
    for (size_t lane = 0; lane < kLanes; ++lane) acc[lane] = V(0.0f);
  }

  static float total(const V (&acc)[kLanes]) { return xsimd::hadd(sum_lanes<0, kLanes>(acc)); }

  // Streams the row x (kResidual: s = x + r, stored to s) vector by vector
  // into acc(v, lane). Tail lanes past n read x as `fill` and r as 0.
  template <bool kResidual, class Acc>
  static void read_row(const float* x, const float* r, float* s, size_t n, float fill, Acc&& acc) {
    for_vectors(
        n,
        [&](size_t i, size_t lane) {
          V v = load(x + i);
          if constexpr (kResidual) {
            v += load(r + i);
            v.store_unaligned(s + i);
          }
          acc(in_register(v), lane);
        },
        [&](size_t i, size_t count) {
          V v = load_tail(x + i, count, fill);
          if constexpr (kResidual) {
            v += load_tail(r + i, count, 0.0f);
            simd::store_partial(Arch{}, s + i, count, v);
          }
          acc(v, 0);
        });
  }

  template <bool kResidual>
  static float sum_squares(const float* x, const float* r, float* s, size_t n) {
    V acc[kLanes];
    set_zero(acc);
    read_row<kResidual>(x, r, s, n, 0.0f,
                        [&](V v, size_t lane) { acc[lane] = xsimd::fma(v, v, acc[lane]); });
    return total(acc);
  }

  // Σ (x[i] - shift) and Σ (x[i] - shift)² for i < n; shift 0 skips the
  // subtraction (two operations a vector instead of three).
  template <bool kResidual>
  static void sum_deviations(const float* x, const float* r, float* s, size_t n, float shift,
                             float* sum_dev, float* sum_dev_sq) {
    V acc[kLanes], acc_sq[kLanes];
    set_zero(acc);
    set_zero(acc_sq);
    auto gather = [&](auto d, size_t lane) {
      acc[lane] += d;
      acc_sq[lane] = xsimd::fma(d, d, acc_sq[lane]);
    };
    if (shift == 0.0f) {
      read_row<kResidual>(x, r, s, n, 0.0f, gather);
    } else {
      const V m = V(shift);
      read_row<kResidual>(x, r, s, n, shift, [&](V v, size_t lane) { gather(v - m, lane); });
    }
    *sum_dev = total(acc);
    *sum_dev_sq = total(acc_sq);
  }

  // How much of the mean the output sweep subtracts: none (RMSNorm family),
  // its float rounding, or the float pair hi + lo (|mean| >> std).
  enum class Centering { kNone, kMean, kMeanTwoFloats };

  /// Leaves a normalized vector as it is: the plain norm's "activation".
  struct Identity {
    V operator()(V v) const { return v; }
  };

  // Where write_output's gain and bias vectors come from: a per-element
  // vector (the row norms), or one value for the whole row (a spatial norm's
  // channel bias).
  struct PerElement {
    const float* data;
    V at(size_t i) const { return load(data + i); }
    V tail(size_t i, size_t count) const { return load_tail(data + i, count, 0.0f); }
  };
  struct Broadcast {
    V value;
    V at(size_t) const { return value; }
    V tail(size_t, size_t) const { return value; }
  };

  // y[i] = act((x[i] - mean) * scale * g'[i] + b[i]).
  template <Centering kCenter, bool kGain, bool kOnePlus, bool kBias, class Act,
            class Gain = PerElement, class Bias = PerElement>
  static void write_output(const float* x, float* y, size_t n, const NormScale& map, Gain gain,
                           Bias bias, Act act) {
    const V hi = V(map.mean_hi), lo = V(map.mean_lo), sc = V(map.scale), one = V(1.0f);
    auto normalize = [&](V v, V g, V b) {
      if constexpr (kCenter != Centering::kNone) v -= hi;
      if constexpr (kCenter == Centering::kMeanTwoFloats) v -= lo;
      V factor = sc;
      if constexpr (kGain) factor *= kOnePlus ? g + one : g;
      if constexpr (kBias) {
        return act(xsimd::fma(v, factor, b));
      } else {
        return act(v * factor);
      }
    };
    const V unused = V(0.0f);
    auto step = [&](size_t i) {
      normalize(load(x + i), kGain ? gain.at(i) : unused, kBias ? bias.at(i) : unused)
          .store_unaligned(y + i);
    };
    // Four vectors a step: with one, the loop's own instructions held the
    // sweep at ~2.9 cycles a vector instead of ~2.3 (LayerNorm, n = 1024).
    size_t i = 0;
    for (; i + 4 * kWidth <= n; i += 4 * kWidth) {
      step(i);
      step(i + kWidth);
      step(i + 2 * kWidth);
      step(i + 3 * kWidth);
    }
    for (; i + kWidth <= n; i += kWidth) step(i);
    if (i < n) {
      const size_t count = n - i;
      const V v = normalize(load_tail(x + i, count, 0.0f), kGain ? gain.tail(i, count) : unused,
                            kBias ? bias.tail(i, count) : unused);
      simd::store_partial(Arch{}, y + i, count, v);
    }
  }

  // y = act(norm(x)) over n elements with this row's map; gain and bias
  // (or null) are indexed from the same element as x.
  template <class Act = Identity>
  static void normalize(const NormParams& params, const NormScale& map, const float* x, float* y,
                        size_t n, const float* gain, const float* bias, Act act = Act{}) {
    const bool one_plus = params.gain_convention == GainConvention::kOnePlus;
    auto with_centering = [&](auto&& f) {
      if (params.kind != NormKind::kLayerNorm) {
        f(std::integral_constant<Centering, Centering::kNone>{});
      } else if (map.mean_lo != 0.0f) {
        f(std::integral_constant<Centering, Centering::kMeanTwoFloats>{});
      } else {
        f(std::integral_constant<Centering, Centering::kMean>{});
      }
    };
    with_centering([&](auto c) {
      with_flag(gain != nullptr, [&](auto g) {
        with_flag(one_plus && gain != nullptr, [&](auto o) {
          with_flag(bias != nullptr, [&](auto b) {
            write_output<decltype(c)::value, decltype(g)::value, decltype(o)::value,
                         decltype(b)::value>(x, y, n, map, PerElement{gain}, PerElement{bias}, act);
          });
        });
      });
    });
  }

  // 1 / denominator from a statistic (variance or mean square) in float's
  // safe range. On one row this chain sits between the two sweeps, with
  // nothing to overlap it; in float it is ~25 cycles shorter than
  // norm_scale's double one, for a few float roundings of the scale
  // (~3e-7 relative, inside the 4e-6 contract).
  static float float_scale(const NormParams& params, float statistic) {
    return params.eps_placement == EpsPlacement::kAddedToRms
               ? 1.0f / (std::sqrt(statistic) + params.eps)
               : 1.0f / std::sqrt(statistic + params.eps);
  }

  // LayerNorm's map from Σ s and Σ s² of one sweep, in float, or false
  // where those sums cannot give it: out of range, or |mean| more than
  // ~2.8 std, where E[s²] − E[s]² cancels (more than 3 bits). The mean is
  // kept to float precision, as the contract allows.
  static bool layer_norm_map(const NormParams& params, size_t n, float sum, float sum_sq,
                             NormScale* map) {
    const float count = static_cast<float>(n);
    const float mean = sum / count;
    const float m2 = sum_sq - sum * mean;  // Σ (s - mean)²
    if (!(sum_is_safe(sum_sq) && std::isfinite(sum) && mean * mean * count * 0.125f <= m2)) {
      return false;
    }
    map->mean_hi = mean;
    map->mean_lo = 0.0f;
    map->scale = float_scale(params, m2 / count);
    return true;
  }

  // LayerNorm moments in double from the first sweep's Σ s and Σ s², for the
  // rows layer_norm_map turns down: if |mean| >> std made them cancel, a
  // second sweep around the mean found (the corrected two-pass algorithm)
  // keeps full accuracy.
  static Moments careful_moments(const float* s, size_t n, float sum, float sum_sq) {
    Moments m = moments_from_deviations(n, 0.0, sum, sum_sq);
    if (std::isfinite(sum) && shift_was_poor(m, 0.0)) {
      const float shift = static_cast<float>(m.mean);
      sum_deviations<false>(s, nullptr, nullptr, n, shift, &sum, &sum_sq);
      m = moments_from_deviations(n, shift, sum, sum_sq);
    }
    return m;
  }

  // The map of one row whose statistics are gathered (and s = x + r written);
  // false: the float sums left their safe range, the row takes the double
  // reference. x is the row as normalized (s with a residual).
  template <bool kResidual>
  static bool row_map(const NormParams& params, size_t n, size_t stat_count, const float* src,
                      const float* residual, float* s, const float* x, NormScale* map) {
    if (params.kind == NormKind::kLayerNorm) {
      float sum = 0.0f, sum_sq = 0.0f;
      sum_deviations<kResidual>(src, residual, s, n, 0.0f, &sum, &sum_sq);
      if (layer_norm_map(params, n, sum, sum_sq, map)) return true;
      const Moments m = careful_moments(x, n, sum, sum_sq);
      *map = norm_scale(params, m.mean, m.m2 / m.count);
      return m.safe;
    }
    const float sum_sq = sum_squares<kResidual>(src, residual, s, stat_count);
    if constexpr (kResidual) {
      read_row<true>(src + stat_count, residual + stat_count, s + stat_count, n - stat_count, 0.0f,
                     [](V, size_t) {});
    }
    *map = NormScale{};
    map->scale = float_scale(params, sum_sq / static_cast<float>(stat_count));
    return sum_is_safe(sum_sq);
  }

  // `act` is applied to each normalized vector (Identity: the plain norm);
  // a row the double reference wrote gets `row_act` by the scalar activation
  // kernel (rare: overflowing or underflowing rows).
  template <bool kResidual, class Act = Identity>
  static void row(const NormParams& params, const NormRows& rows, size_t stat_count,
                  const float* src, const float* residual, float* s, float* dst, Act act = {},
                  Activation row_act = Activation::kNone, float alpha = 0.0f) {
    const float* x = kResidual ? s : src;  // the row to normalize once s is written
    NormScale map;
    if (row_map<kResidual>(params, rows.n, stat_count, src, residual, s, x, &map)) {
      normalize(params, map, x, dst, rows.n, rows.gain, rows.bias, act);
    } else {
      norm_row_reference(params, rows.n, stat_count, x, nullptr, nullptr, rows.gain, rows.bias,
                         dst);
      if (row_act != Activation::kNone) {
        activation_kernel_for(Isa::kScalar)(row_act, alpha, dst, dst, rows.n);
      }
    }
  }

  // The building blocks for callers that gather statistics in pieces.
  static const NormRowOps& row_ops() {
    static const NormRowOps ops = {
        [](const float* x, const float* r, float* s, size_t n) -> double {
          return r ? sum_squares<true>(x, r, s, n) : sum_squares<false>(x, nullptr, nullptr, n);
        },
        [](const float* x, const float* r, float* s, size_t n, float shift, double* sum_dev,
           double* sum_dev_sq) {
          float dev = 0.0f, dev_sq = 0.0f;
          if (r) {
            sum_deviations<true>(x, r, s, n, shift, &dev, &dev_sq);
          } else {
            sum_deviations<false>(x, nullptr, nullptr, n, shift, &dev, &dev_sq);
          }
          *sum_dev = dev;
          *sum_dev_sq = dev_sq;
        },
        [](const float* x, const float* r, float* s, size_t n) {
          read_row<true>(x, r, s, n, 0.0f, [](V, size_t) {});
        },
        [](const NormParams& params, const NormScale& map, Activation act, float alpha,
           const float* x, float* y, size_t n, const float* gain, const float* bias) {
          simd::with_activation(act, [&](auto a) {
            normalize(params, map, x, y, n, gain, bias,
                      [alpha](V v) { return simd::activate<decltype(a)::value>(v, alpha); });
          });
        },
        [](const NormParams& params, const NormRows& rows, Activation act, float alpha) {
          run_activated(params, rows, act, alpha);
        },
    };
    return ops;
  }

  template <class Act = Identity>
  static void run(const NormParams& params, const NormRows& rows, Act act = {},
                  Activation row_act = Activation::kNone, float alpha = 0.0f) {
    const size_t stat_count = norm_stat_count(params, rows.n);
    for (size_t r = 0; r < rows.rows; ++r) {
      const float* src = rows.src + r * rows.src_stride;
      float* dst = rows.dst + r * rows.dst_stride;
      if (rows.residual == nullptr) {
        row<false>(params, rows, stat_count, src, nullptr, nullptr, dst, act, row_act, alpha);
      } else {
        // Without a sum_dst, dst holds s until the output sweep overwrites it.
        float* s = rows.sum_dst ? rows.sum_dst + r * rows.sum_stride : dst;
        row<true>(params, rows, stat_count, src, rows.residual + r * rows.residual_stride, s, dst,
                  act, row_act, alpha);
      }
    }
  }

  // The spatial norm (norm_spatial.h): each plane is a row whose statistics
  // row_map() gathers; the channel's gain g' is folded into the scale (one
  // float rounding more, as write_output's factor = scale·g' has) and its
  // bias is broadcast, so the output sweep is one fma and the activation a
  // vector.
  template <class Act>
  static void spatial_planes(const NormParams& params, const NormPlanes& p, Act act) {
    const size_t stat_count = norm_stat_count(params, p.plane);
    const bool one_plus = params.gain_convention == GainConvention::kOnePlus;
    for (size_t i = 0; i < p.images; ++i) {
      for (size_t c = 0; c < p.channels; ++c) {
        const size_t offset = (i * p.channels + c) * p.plane;
        const float* x = p.src + offset;
        float* y = p.dst + offset;
        NormScale map;
        if (!row_map<false>(params, p.plane, stat_count, x, nullptr, nullptr, x, &map)) {
          norm_plane_reference(params, p.plane, stat_count, x, p.gain ? p.gain + c : nullptr,
                               p.bias ? p.bias + c : nullptr, y);
          activation_kernel_for(Isa::kScalar)(p.activation, p.alpha, y, y, p.plane);
          continue;
        }
        if (p.gain) map.scale *= one_plus ? p.gain[c] + 1.0f : p.gain[c];
        const Broadcast bias{V(p.bias ? p.bias[c] : 0.0f)};
        auto write = [&](auto center) {
          if (p.bias) {
            write_output<decltype(center)::value, false, false, true>(x, y, p.plane, map,
                                                                      Broadcast{}, bias, act);
          } else {
            write_output<decltype(center)::value, false, false, false>(x, y, p.plane, map,
                                                                       Broadcast{}, bias, act);
          }
        };
        if (params.kind != NormKind::kLayerNorm) {
          write(std::integral_constant<Centering, Centering::kNone>{});
        } else if (map.mean_lo != 0.0f) {
          write(std::integral_constant<Centering, Centering::kMeanTwoFloats>{});
        } else {
          write(std::integral_constant<Centering, Centering::kMean>{});
        }
      }
    }
  }

  static void spatial(const NormParams& params, const NormPlanes& planes) {
    const float alpha = planes.alpha;
    simd::with_activation(planes.activation, [&](auto a) {
      spatial_planes(params, planes,
                     [alpha](V v) { return simd::activate<decltype(a)::value>(v, alpha); });
    });
  }

  // run() with an activation after the norm: y = act(norm(x (+ r))).
  static void run_activated(const NormParams& params, const NormRows& rows, Activation act,
                            float alpha) {
    simd::with_activation(act, [&](auto a) {
      run(
          params, rows, [alpha](V v) { return simd::activate<decltype(a)::value>(v, alpha); }, act,
          alpha);
    });
  }
};

}  // namespace
}  // namespace normrt::detail
