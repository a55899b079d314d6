#include "base/isa.h"

#include <string>

namespace normrt {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
  }
  return "unknown";
}

Expected<Isa> isa_from_name(std::string_view name) {
  for (Isa isa : kAllIsas) {
    if (name == isa_name(isa)) return isa;
  }
  return Status::error("unknown ISA '" + std::string(name) +
                       "' (expected one of: scalar, avx2, avx512, neon)");
}

}  // namespace normrt
