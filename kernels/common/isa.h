#pragma once
// Instruction-set selection. The kernel variant for each ISA is compiled into
// its own translation unit; which one runs is decided once per process: the
// best one this CPU supports, or the one named by NORMRT_ISA
// (scalar|avx2|avx512|neon), which is an error if the CPU cannot run it.
// The Isa enum and its names live in base/isa.h.

#include <vector>

#include "base/isa.h"
#include "base/status.h"

namespace normrt {

/// True if this library was built with kernels for `isa`.
bool isa_compiled(Isa isa);

/// True if `isa` is compiled in and this CPU (and OS) can execute it.
bool isa_runnable(Isa isa);

/// Every runnable ISA, worst to best (always starts with kScalar).
std::vector<Isa> runnable_isas();

/// Checks that `isa` can run here, with a message naming what is missing.
Status check_isa_runnable(Isa isa);

/// True if this CPU (and OS) can execute AVX-512 BF16 (vdpbf16ps). A capability
/// inside Isa::kAvx512, queried by the kernels that have a variant for it.
bool cpu_has_avx512_bf16();

/// True if this CPU has AMX with bf16 tiles (what oneDNN's bf16 matmul needs
/// to beat normrt's kernels; without it oneDNN runs a slower AVX-512 GEMM).
bool cpu_has_amx_bf16();

/// The ISA to use: NORMRT_ISA if set (validated), else the best runnable one.
/// Resolved on first call and cached for the process.
Expected<Isa> selected_isa();

}  // namespace normrt
