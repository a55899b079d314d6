#pragma once
// The kernel variants a test checks: every runnable entry of a family's list
// (kernels/common/kernel_variant.h), so that every variant this build has is
// tested on every CPU that can run it. With NORMRT_ISA set (the forced-ISA
// CTest entries), only that ISA's entries.

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/common/kernel_variant.h"

namespace normrt::testing {

template <class Variant>
std::vector<const Variant*> variants_under_test(const std::vector<Variant>& list) {
  const char* forced = std::getenv("NORMRT_ISA");
  std::vector<const Variant*> out;
  for (const Variant* variant : normrt::runnable_variants(list)) {
    if (forced != nullptr && forced[0] != '\0' && std::string(forced) != isa_name(variant->isa)) {
      continue;
    }
    out.push_back(variant);
  }
  return out;
}

/// The variant's name as a std::string (doctest prints a bare const char* in
/// a comparison as a pointer).
inline std::string variant_label(const KernelVariant& variant) { return variant.name; }

}  // namespace normrt::testing
