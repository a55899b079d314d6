#pragma once
// Linear layer: y = x · Wᵀ + b, float32 activations, float32 accumulation.
//
//   x (m, k)   rows of activations, row stride x_stride floats
//   W (n, k)   row-major, as PyTorch's nn.Linear stores it; float32, bfloat16
//              or int8 (per output channel, kernels/linear/linear_int8.h)
//   b (n)      optional bias
//   y (m, n)   row stride y_stride floats
//
// Built for batch-1 inference: m = 1 (an RNN step, a decoder token) and small
// m (up to a few hundred). The weights are packed once, at load, into panels:
// for each panel of P consecutive output columns, for each k, the P weights
// of that k are contiguous (bf16: pairs k = 2j, 2j+1 interleaved in one 32-bit
// word per column, even k in the low half). The kernel streams each panel once
// per call, broadcasts x[k] and accumulates P outputs in vector registers: no
// horizontal reductions, and output panels are finished in order, so a fused
// epilogue can consume them block by block (linear_columns()).
//
// bfloat16 weights: a float is rounded to the nearest bf16, ties to even; NaN
// stays NaN (quiet) (base/bf16.h). The kernels compute with the bf16 values widened exactly
// to float, so their result is that of a float32 GEMV over the rounded weights.
//
// Accuracy contract (every f32 and bf16 variant): for each output,
//   |y − y_exact| ≤ 1e-5 · (|b| + Σ_k |w_k·x_k|)
// where y_exact is the exact result for the float (or bf16-rounded) weights.
// The SIMD kernels sum in two levels (blocks of 128-256 k, then the block
// sums), so the longest float chain is ~(128 + k/128) terms; measured errors
// are 2e-7 to 1e-6 of Σ|w·x| for k up to 4097 (tests/kernels/test_linear_*).
//
// int8 weights quantize x per row at run time and accumulate in int32: the
// result is exact for the quantized x and W up to the float rounding of the
// dequantization (linear_int8.h states both contracts), so the same bound
// holds with x and W replaced by their quantized values.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/kernel_variant.h"

namespace normrt {

enum class WeightType { kF32, kBF16, kInt8 };

/// "f32", "bf16" or "int8".
const char* weight_type_name(WeightType type);

namespace detail {
struct LinearArgs;  // kernels/linear/linear_variants.h
}
using LinearKernel = void (*)(const detail::LinearArgs& args);

/// One compiled kernel: the unit that dispatch, tests and benchmarks iterate
/// (name: dtype, op, ISA, panel width, e.g. "f32_gemv__avx512_p64").
struct LinearVariant : KernelVariant {
  WeightType type;     ///< weight type it reads
  size_t panel_width;  ///< P: output columns per weight panel
  LinearKernel kernel;
};

/// Every variant compiled into this build (linear_variants.cc), in order of
/// preference within each (ISA, weight type).
const std::vector<LinearVariant>& linear_variants();

/// True if this CPU can run `variant`.
bool linear_variant_runnable(const LinearVariant& variant);

/// The variant pack_weights(.., type, isa) uses, and why, for the planner's
/// log and for users asking why a kernel runs. The first runnable variant of
/// (isa, type) in linear_variants(); if `isa` has none for `type` (int8 on an
/// AVX-512 CPU without AVX512_VNNI, on AVX2 without AVX_VNNI it is the
/// vpmaddubsw kernel, on NEON without the dot product), the best runnable one
/// of a lower ISA of the same family. The reason names every variant passed
/// over and the CPU feature it lacked.
struct LinearVariantChoice {
  const LinearVariant* variant = nullptr;
  std::string reason;
};
/// An error if `isa` cannot run here or no variant of `type` runs at all.
/// `runnable` replaces linear_variant_runnable (tests: a CPU without a feature).
Expected<LinearVariantChoice> choose_linear_variant(
    WeightType type, Isa isa, bool (*runnable)(const LinearVariant&) = linear_variant_runnable);

/// Weights packed for one variant, in a 64-byte aligned buffer that it owns or
/// borrows (borrow_packed_weights(): e.g. straight from a mapped model file).
/// Copies share the buffer.
class PackedWeights {
 public:
  PackedWeights() = default;

  size_t n() const { return n_; }  ///< output columns
  size_t k() const { return k_; }  ///< input features
  WeightType type() const { return variant_->type; }
  Isa isa() const { return variant_->isa; }
  const LinearVariant& variant() const { return *variant_; }
  bool empty() const { return variant_ == nullptr; }

  /// Output columns per panel: linear_columns() ranges start on multiples of it.
  size_t panel_width() const { return variant_->panel_width; }
  /// Bytes of one panel (P columns × k, zero-padded), and of all of them.
  size_t panel_bytes() const { return panel_bytes_; }
  size_t size_bytes() const { return panel_bytes_ * panel_count(); }
  size_t panel_count() const { return (n_ + panel_width() - 1) / panel_width(); }
  const void* data() const { return data_.get(); }
  /// True if the buffer is borrowed (borrow_packed_weights()), not owned.
  bool borrowed() const { return borrowed_; }

 private:
  friend class PackedWeightsBuilder;

  const LinearVariant* variant_ = nullptr;
  size_t n_ = 0, k_ = 0;
  size_t panel_bytes_ = 0;
  bool borrowed_ = false;
  std::shared_ptr<const std::byte> data_;
};

/// Packs float weights W (n, k), row-major, for choose_linear_variant(type,
/// isa). kBF16 rounds them to bfloat16; kInt8 quantizes each output channel
/// (linear_int8.h; non-finite weights are an error).
Expected<PackedWeights> pack_weights(const float* w, size_t n, size_t k, WeightType type, Isa isa);
/// Packs for one variant (tests and benchmarks use this to reach every variant).
Expected<PackedWeights> pack_weights(const float* w, size_t n, size_t k,
                                     const LinearVariant& variant);

/// Packs weights already stored as bfloat16 bits, W (n, k) row-major.
Expected<PackedWeights> pack_weights_bf16(const uint16_t* w, size_t n, size_t k, Isa isa);
Expected<PackedWeights> pack_weights_bf16(const uint16_t* w, size_t n, size_t k,
                                          const LinearVariant& variant);

/// Bytes of W (n, k) of `type` packed in panels of `panel_width` columns (what
/// PackedWeights::size_bytes() is for such weights); an error if n or k is 0
/// or the size overflows.
Expected<size_t> packed_weights_bytes(size_t n, size_t k, WeightType type, size_t panel_width);

/// Uses `data`, already in `variant`'s packed layout (as pack_weights() writes
/// it), without copying; `owner` keeps it alive. Requires 64-byte alignment
/// and bytes == packed_weights_bytes(n, k, variant.type, variant.panel_width).
/// int8 data is checked first (validate_int8_packed(): one read of the bytes):
/// a corrupt column sum would otherwise give a wrong answer on one ISA only.
Expected<PackedWeights> borrow_packed_weights(const void* data, size_t bytes, size_t n, size_t k,
                                              const LinearVariant& variant,
                                              std::shared_ptr<const void> owner);

/// The inverse of packing: writes W (n, k) row-major from data packed in
/// panels of `panel_width` — floats for kF32, bfloat16 bits (uint16_t) for
/// kBF16 — into `row_major` (n·k elements). `bytes` is checked as above.
/// kInt8 (values and scales) has its own pair in linear_int8.h.
Status unpack_weights(const void* data, size_t bytes, size_t n, size_t k, WeightType type,
                      size_t panel_width, void* row_major);

/// Packing as plain data, for any panel width (a converter writing a model
/// for another CPU): the exact inverse of unpack_weights(). `packed` must hold
/// packed_weights_bytes() bytes; padding is zeroed.
Status pack_weights_into(const void* row_major, size_t n, size_t k, WeightType type,
                         size_t panel_width, void* packed, size_t bytes);

/// Rounds a column index up to where a linear_columns() range may begin or
/// end: the next multiple of the panel width, or n. For pRMSNorm's first
/// ⌊p·n⌋ outputs: linear_columns(.., 0, linear_column_boundary(w, ⌊p·n⌋), ..).
size_t linear_column_boundary(const PackedWeights& w, size_t column);

/// Checks a linear_columns() call; the message names the offending argument.
Status linear_validate(const PackedWeights& w, const float* x, size_t m, size_t x_stride,
                       const float* y, size_t y_stride, size_t n_begin, size_t n_end,
                       const float* bias);

/// Computes the output columns [n_begin, n_end) of every row:
///   y[r][c] = bias[c] + Σ_k x[r][k] · W[c][k]   for r < m, n_begin ≤ c < n_end.
/// x: (m, x_stride) with x_stride ≥ k (unless m = 1). y: (m, y_stride) with
/// y_stride ≥ n (unless m = 1), addressed by absolute column index; columns
/// outside the range are not touched. bias: (n) or null; indexed by absolute column.
/// Range: n_begin a multiple of panel_width(); n_end a multiple of it or n;
/// n_begin ≤ n_end ≤ n (an empty range does nothing). Any alignment of x, y, bias.
/// Aliasing: y must not overlap x, bias or the weights.
/// Threads may compute disjoint column ranges of the same y concurrently.
Status linear_columns(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
                      size_t y_stride, size_t n_begin, size_t n_end, const float* bias);

/// All columns: linear_columns(w, x, m, x_stride, y, y_stride, 0, n, bias).
Status linear(const PackedWeights& w, const float* x, size_t m, size_t x_stride, float* y,
              size_t y_stride, const float* bias);

}  // namespace normrt
