#pragma once
// What every kernel variant declares, whatever its family. A family (norm,
// norm_spatial, linear, activation, rnn gates, attention) keeps one list of
// the variants this build compiled, `<family>_variants()` in
// `<family>_variants.cc`, each entry a struct deriving from KernelVariant that
// adds the family's entry points. That list is the one place a variant is
// named: dispatch takes the first runnable entry of an ISA, the tests check
// every runnable entry against the reference and the benchmarks time every
// runnable entry, so a variant that exists is dispatched, tested and timed.
//
// Adding a variant: its translation unit `<family>_<isa>.cc` (compiled with the
// ISA's flags by normrt_add_kernel_family in kernels/CMakeLists.txt; the ISAs
// and their flags are listed once, in cmake/kernel_isas.cmake) and one entry
// in the family's list, guarded by NORMRT_HAVE_<ISA> (a definition private to
// the kernels' sources). An extension inside an ISA (AVX512-VNNI, the Armv8.2
// dot product, ...) is a CpuFeature the entry names; it comes before the
// plain entry of its ISA that it beats.

#include <vector>

#include "kernels/common/isa.h"

namespace normrt {

struct KernelVariant {
  const char* name;  ///< dtype, op, ISA, tile: "f32_gemv__avx512_p64", "f32_norm__neon"
  Isa isa;           ///< the instruction set it is compiled for (what NORMRT_ISA selects)
  CpuFeature feature = CpuFeature::kNone;  ///< an extension of `isa` it also needs
};

/// True if this CPU (and OS) can run the variant: its ISA and its feature.
bool kernel_variant_runnable(const KernelVariant& variant);

/// The variant dispatch uses for `isa`: the first entry of that ISA whose
/// feature this CPU has, or null if the list has none. `isa` itself need not
/// be runnable here (the tests ask every compiled ISA for its kernels).
template <class Variant>
const Variant* first_variant_for(const std::vector<Variant>& variants, Isa isa) {
  for (const Variant& variant : variants) {
    if (variant.isa == isa && cpu_has(variant.feature)) return &variant;
  }
  return nullptr;
}

/// Every entry of `variants` this CPU can run, in list order: what the tests
/// and benchmarks iterate.
template <class Variant>
std::vector<const Variant*> runnable_variants(const std::vector<Variant>& variants) {
  std::vector<const Variant*> out;
  for (const Variant& variant : variants) {
    if (kernel_variant_runnable(variant)) out.push_back(&variant);
  }
  return out;
}

}  // namespace normrt
