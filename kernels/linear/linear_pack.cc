// Weight packing (ISA-free: plain loops, run once at load).
//
// Packed layout, panel p = columns [p·P, p·P + P), columns ≥ n zero-filled:
//   float: panel[k·P + c]                      = W[p·P + c][k]
//   bf16:  panel[(k/2)·2P + 2c + (k mod 2)]     = W[p·P + c][k]   (uint16 units)
//          i.e. one 32-bit word per (k pair, column), even k in the low half;
//          an odd k is padded with a zero weight.
//   int8:  groups of 4 k per 32-bit word, scales and column sums after the
//          weights of each panel: kernels/linear/linear_int8.h (and
//          linear_pack_int8.cc, which writes it).
// Each panel is padded to a multiple of 64 bytes, so every panel (and, for
// P ≥ 16, every k row of it) starts on a cache line.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/bf16.h"
#include "kernels/common/weight_memory.h"
#include "kernels/linear/linear_int8.h"
#include "kernels/linear/linear_variants.h"

namespace normrt {

namespace {

constexpr size_t kPanelAlign = 64;

// The packed layout's geometry: rows of k per panel and padded panel bytes.
struct PanelGeometry {
  size_t k_rows, panel_bytes, panels;
};

Expected<PanelGeometry> panel_geometry(size_t n, size_t k, WeightType type, size_t p) {
  const size_t element = type == WeightType::kF32 ? 4 : type == WeightType::kBF16 ? 2 : 1;
  // bf16: whole pairs; int8: whole groups of 4, and 8 bytes per column for
  // the scale and column sum.
  const size_t k_rows = type == WeightType::kF32    ? k
                        : type == WeightType::kBF16 ? k + (k & 1)
                                                    : (k + 3) / 4 * 4 + 8;
  const size_t max = std::numeric_limits<size_t>::max();
  if (n == 0 || k == 0 || p == 0 || k_rows > max / p / element - kPanelAlign) {
    return Status::error("packed weights: invalid shape " + std::to_string(n) + " x " +
                         std::to_string(k) + " with panels of " + std::to_string(p));
  }
  if (type == WeightType::kInt8 && k > kInt8MaxK) {
    return Status::error("packed weights: int8 k = " + std::to_string(k) + " exceeds " +
                         std::to_string(kInt8MaxK) + " (int32 accumulation could overflow)");
  }
  const size_t panel_bytes = (k_rows * p * element + kPanelAlign - 1) / kPanelAlign * kPanelAlign;
  const size_t panels = (n + p - 1) / p;
  if (panels > max / panel_bytes) {
    return Status::error("packed weights: " + std::to_string(n) + " x " + std::to_string(k) +
                         " weights do not fit in memory");
  }
  return PanelGeometry{k_rows, panel_bytes, panels};
}

// Index of W[c][i] (c within its panel) in a panel, in elements.
size_t panel_index(WeightType type, size_t p, size_t c, size_t i) {
  return type == WeightType::kF32 ? i * p + c : (i / 2) * 2 * p + 2 * c + (i & 1);
}

}  // namespace

// Fills a PackedWeights; the one place that touches its internals.
class PackedWeightsBuilder {
 public:
  // `at(c, i)` returns W[c][i] as the packed element type (float or bf16 bits).
  template <class Element, class At>
  static Expected<PackedWeights> pack(const LinearVariant& variant, size_t n, size_t k, At&& at) {
    const size_t p = variant.panel_width;
    NORMRT_ASSIGN_OR_RETURN(PanelGeometry geometry, panel_geometry(n, k, variant.type, p));
    const size_t panel_bytes = geometry.panel_bytes, panels = geometry.panels;
    std::shared_ptr<std::byte> owned = allocate_weight_memory(panels * panel_bytes);  // zeroed
    if (owned == nullptr) {
      return Status::error("pack_weights: cannot allocate " + std::to_string(panels * panel_bytes) +
                           " bytes");
    }
    std::byte* memory = owned.get();
    for (size_t panel = 0; panel < panels; ++panel) {
      auto* dst = reinterpret_cast<Element*>(memory + panel * panel_bytes);
      for (size_t c = 0; c < p && panel * p + c < n; ++c) {
        const size_t col = panel * p + c;
        for (size_t i = 0; i < k; ++i) dst[panel_index(variant.type, p, c, i)] = at(col, i);
      }
    }
    PackedWeights packed;
    packed.variant_ = &variant;
    packed.n_ = n;
    packed.k_ = k;
    packed.panel_bytes_ = panel_bytes;
    packed.data_ = std::move(owned);
    return packed;
  }

  // Quantized weights q (n, k) and their scales, in the int8 layout.
  static Expected<PackedWeights> pack_int8(const LinearVariant& variant, size_t n, size_t k,
                                           const int8_t* q, const float* scales) {
    NORMRT_ASSIGN_OR_RETURN(size_t bytes,
                            packed_weights_bytes(n, k, WeightType::kInt8, variant.panel_width));
    std::shared_ptr<std::byte> owned = allocate_weight_memory(bytes);
    if (owned == nullptr) {
      return Status::error("pack_weights: cannot allocate " + std::to_string(bytes) + " bytes");
    }
    std::byte* memory = owned.get();
    NORMRT_RETURN_IF_ERROR(
        pack_weights_int8_into(q, scales, n, k, variant.panel_width, memory, bytes));
    PackedWeights packed;
    packed.variant_ = &variant;
    packed.n_ = n;
    packed.k_ = k;
    packed.panel_bytes_ = detail::int8_panel_bytes(k, variant.panel_width);
    packed.data_ = std::move(owned);
    return packed;
  }

  static Expected<PackedWeights> borrow(const void* data, size_t bytes, size_t n, size_t k,
                                        const LinearVariant& variant,
                                        std::shared_ptr<const void> owner) {
    NORMRT_ASSIGN_OR_RETURN(size_t expected,
                            packed_weights_bytes(n, k, variant.type, variant.panel_width));
    if (bytes != expected) {
      return Status::error("borrow_packed_weights: " + std::to_string(bytes) + " bytes, expected " +
                           std::to_string(expected) + " for " + std::to_string(n) + " x " +
                           std::to_string(k) + " " + weight_type_name(variant.type) +
                           " in panels of " + std::to_string(variant.panel_width));
    }
    if (data == nullptr || reinterpret_cast<uintptr_t>(data) % kPanelAlign != 0) {
      return Status::error("borrow_packed_weights: data must be 64-byte aligned and not null");
    }
    if (variant.type == WeightType::kInt8) {
      Status valid = validate_int8_packed(data, bytes, n, k, variant.panel_width);
      if (!valid) return Status::error("borrow_packed_weights: " + valid.message());
    }
    PackedWeights packed;
    packed.variant_ = &variant;
    packed.n_ = n;
    packed.k_ = k;
    packed.panel_bytes_ = expected / ((n + variant.panel_width - 1) / variant.panel_width);
    packed.data_ =
        std::shared_ptr<const std::byte>(std::move(owner), static_cast<const std::byte*>(data));
    packed.borrowed_ = true;
    return packed;
  }
};

namespace {

Status check_pack_args(const void* w, size_t n, size_t k, const LinearVariant& variant,
                       WeightType type) {
  if (w == nullptr) return Status::error("pack_weights: w is null");
  if (n == 0 || k == 0) {
    return Status::error("pack_weights: W must be at least 1 x 1 (got n = " + std::to_string(n) +
                         ", k = " + std::to_string(k) + ")");
  }
  if (variant.type != type) {
    return Status::error(std::string("pack_weights: variant ") + variant.name + " reads " +
                         weight_type_name(variant.type) + " weights, not " +
                         weight_type_name(type));
  }
  if (!linear_variant_runnable(variant)) {
    return Status::error(std::string("pack_weights: this CPU cannot run variant ") + variant.name);
  }
  return Status::ok();
}

// The variant choose_linear_variant() picks for (isa, type).
Expected<const LinearVariant*> variant_for(Isa isa, WeightType type) {
  Expected<LinearVariantChoice> choice = choose_linear_variant(type, isa);
  if (!choice) return Status::error("pack_weights: " + choice.status().message());
  return choice->variant;
}

}  // namespace

Expected<PackedWeights> pack_weights(const float* w, size_t n, size_t k,
                                     const LinearVariant& variant) {
  NORMRT_RETURN_IF_ERROR(check_pack_args(w, n, k, variant, variant.type));
  if (variant.type == WeightType::kF32) {
    return PackedWeightsBuilder::pack<float>(variant, n, k,
                                             [&](size_t c, size_t i) { return w[c * k + i]; });
  }
  if (variant.type == WeightType::kInt8) {
    if (Expected<size_t> bytes = packed_weights_bytes(n, k, WeightType::kInt8, 1); !bytes) {
      return Status::error("pack_weights: " + bytes.status().message());
    }
    std::vector<int8_t> q(n * k);
    std::vector<float> scales(n);
    for (size_t c = 0; c < n; ++c) {
      scales[c] = quantize_int8(w + c * k, k, q.data() + c * k);
      if (std::isnan(scales[c])) {
        return Status::error("pack_weights: row " + std::to_string(c) +
                             " of W holds an infinity or NaN (int8 quantization needs finite "
                             "weights)");
      }
    }
    return PackedWeightsBuilder::pack_int8(variant, n, k, q.data(), scales.data());
  }
  return PackedWeightsBuilder::pack<uint16_t>(
      variant, n, k, [&](size_t c, size_t i) { return bf16_from_float(w[c * k + i]); });
}

Expected<size_t> packed_weights_bytes(size_t n, size_t k, WeightType type, size_t panel_width) {
  NORMRT_ASSIGN_OR_RETURN(PanelGeometry geometry, panel_geometry(n, k, type, panel_width));
  return geometry.panels * geometry.panel_bytes;
}

Expected<PackedWeights> borrow_packed_weights(const void* data, size_t bytes, size_t n, size_t k,
                                              const LinearVariant& variant,
                                              std::shared_ptr<const void> owner) {
  NORMRT_RETURN_IF_ERROR(check_pack_args(data, n, k, variant, variant.type));
  return PackedWeightsBuilder::borrow(data, bytes, n, k, variant, std::move(owner));
}

Status unpack_weights(const void* data, size_t bytes, size_t n, size_t k, WeightType type,
                      size_t panel_width, void* row_major) {
  if (type == WeightType::kInt8) {
    return Status::error("unpack_weights: int8 weights have scales: use unpack_weights_int8");
  }
  NORMRT_ASSIGN_OR_RETURN(PanelGeometry geometry, panel_geometry(n, k, type, panel_width));
  if (bytes != geometry.panels * geometry.panel_bytes) {
    return Status::error("unpack_weights: " + std::to_string(bytes) + " bytes, expected " +
                         std::to_string(geometry.panels * geometry.panel_bytes));
  }
  const size_t element = type == WeightType::kF32 ? 4 : 2;
  const auto* packed = static_cast<const std::byte*>(data);
  auto* out = static_cast<std::byte*>(row_major);
  for (size_t c = 0; c < n; ++c) {
    const std::byte* panel = packed + (c / panel_width) * geometry.panel_bytes;
    for (size_t i = 0; i < k; ++i) {
      std::memcpy(out + (c * k + i) * element,
                  panel + panel_index(type, panel_width, c % panel_width, i) * element, element);
    }
  }
  return Status::ok();
}

Status pack_weights_into(const void* row_major, size_t n, size_t k, WeightType type,
                         size_t panel_width, void* packed, size_t bytes) {
  if (type == WeightType::kInt8) {
    return Status::error("pack_weights_into: int8 weights have scales: use pack_weights_int8_into");
  }
  NORMRT_ASSIGN_OR_RETURN(PanelGeometry geometry, panel_geometry(n, k, type, panel_width));
  if (bytes != geometry.panels * geometry.panel_bytes) {
    return Status::error("pack_weights_into: " + std::to_string(bytes) + " bytes, expected " +
                         std::to_string(geometry.panels * geometry.panel_bytes));
  }
  const size_t element = type == WeightType::kF32 ? 4 : 2;
  const auto* in = static_cast<const std::byte*>(row_major);
  auto* out = static_cast<std::byte*>(packed);
  std::memset(out, 0, bytes);
  for (size_t c = 0; c < n; ++c) {
    std::byte* panel = out + (c / panel_width) * geometry.panel_bytes;
    for (size_t i = 0; i < k; ++i) {
      std::memcpy(panel + panel_index(type, panel_width, c % panel_width, i) * element,
                  in + (c * k + i) * element, element);
    }
  }
  return Status::ok();
}

Expected<PackedWeights> pack_weights(const float* w, size_t n, size_t k, WeightType type, Isa isa) {
  NORMRT_ASSIGN_OR_RETURN(const LinearVariant* variant, variant_for(isa, type));
  return pack_weights(w, n, k, *variant);
}

Expected<PackedWeights> pack_weights_bf16(const uint16_t* w, size_t n, size_t k,
                                          const LinearVariant& variant) {
  NORMRT_RETURN_IF_ERROR(check_pack_args(w, n, k, variant, WeightType::kBF16));
  return PackedWeightsBuilder::pack<uint16_t>(variant, n, k,
                                              [&](size_t c, size_t i) { return w[c * k + i]; });
}

Expected<PackedWeights> pack_weights_int8(const int8_t* q, const float* scales, size_t n, size_t k,
                                          const LinearVariant& variant) {
  NORMRT_RETURN_IF_ERROR(check_pack_args(q, n, k, variant, WeightType::kInt8));
  if (scales == nullptr) return Status::error("pack_weights_int8: scales is null");
  return PackedWeightsBuilder::pack_int8(variant, n, k, q, scales);
}

Expected<PackedWeights> pack_weights_int8(const int8_t* q, const float* scales, size_t n, size_t k,
                                          Isa isa) {
  NORMRT_ASSIGN_OR_RETURN(const LinearVariant* variant, variant_for(isa, WeightType::kInt8));
  return pack_weights_int8(q, scales, n, k, *variant);
}

Expected<PackedWeights> pack_weights_bf16(const uint16_t* w, size_t n, size_t k, Isa isa) {
  NORMRT_ASSIGN_OR_RETURN(const LinearVariant* variant, variant_for(isa, WeightType::kBF16));
  return pack_weights_bf16(w, n, k, *variant);
}

}  // namespace normrt
