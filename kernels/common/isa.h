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

/// True if this CPU has AMX with bf16 tiles (what oneDNN's bf16 matmul needs
/// to beat normrt's kernels; without it oneDNN runs a slower AVX-512 GEMM).
bool cpu_has_amx_bf16();

/// Extensions inside an ISA that some kernel variants need beyond it
/// (KernelVariant::feature, kernels/common/kernel_variant.h). Each is queried
/// from the CPU (and OS) once. cmake/kernel_isas.cmake lists the flags that
/// compile each (its NAME is cpu_feature_name()).
enum class CpuFeature {
  kNone,         ///< nothing beyond the ISA
  kAvx512Vnni,   ///< AVX-512 VNNI: vpdpbusd on zmm (inside Isa::kAvx512)
  kAvxVnni,      ///< AVX-VNNI: VEX vpdpbusd on ymm (inside Isa::kAvx2)
  kNeonDotProd,  ///< Armv8.2 dot product: sdot / udot (inside Isa::kNeon)
  kAvx512Bf16,   ///< AVX-512 BF16: vdpbf16ps (inside Isa::kAvx512)
};

/// Every feature but kNone.
inline constexpr CpuFeature kAllCpuFeatures[] = {CpuFeature::kAvx512Vnni, CpuFeature::kAvxVnni,
                                                 CpuFeature::kNeonDotProd, CpuFeature::kAvx512Bf16};

/// The name the Linux kernel gives the feature in /proc/cpuinfo: "avx512_vnni",
/// "avx_vnni", "asimddp", "avx512_bf16"; "none" for kNone.
const char* cpu_feature_name(CpuFeature feature);

/// True if this CPU (and OS) can execute the feature's instructions (kNone: true).
bool cpu_has(CpuFeature feature);

/// The CPUID vendor string ("GenuineIntel", "AuthenticAMD", ...); "" where
/// there is none (not x86). For tuning choices that differ by vendor.
const char* cpu_vendor();

/// The ISA to use: NORMRT_ISA if set (validated), else the best runnable one.
/// Resolved on first call and cached for the process.
Expected<Isa> selected_isa();

}  // namespace normrt
