#pragma once
// The instruction sets normrt has kernels for, and their names. Which ones
// this build compiled and this CPU runs is the kernels' business
// (kernels/common/isa.h); the names are shared by every layer (model
// planning, tools, messages).

#include <array>
#include <string_view>

#include "base/status.h"

namespace normrt {

enum class Isa { kScalar, kAvx2, kAvx512, kNeon };

/// Every ISA normrt knows, worst to best.
inline constexpr std::array<Isa, 4> kAllIsas = {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kNeon};

/// "scalar", "avx2", "avx512" or "neon".
const char* isa_name(Isa isa);

/// Parses a name as accepted by NORMRT_ISA.
Expected<Isa> isa_from_name(std::string_view name);

}  // namespace normrt
