#include "kernels/common/isa.h"

#include <cstdlib>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace normrt {
namespace {

bool cpu_can_run(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    // __builtin_cpu_supports also checks that the OS saves the wide registers.
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
#endif
#if defined(__aarch64__)
    case Isa::kNeon:
      return true;  // Advanced SIMD is mandatory on AArch64.
#endif
    default:
      return false;
  }
}

Expected<Isa> resolve_isa() {
  const char* forced = std::getenv("NORMRT_ISA");
  if (forced != nullptr && *forced != '\0') {
    Expected<Isa> isa = isa_from_name(forced);
    if (!isa) return Status::error("NORMRT_ISA: " + isa.status().message());
    Status runnable = check_isa_runnable(*isa);
    if (!runnable)
      return Status::error("NORMRT_ISA=" + std::string(forced) + ": " + runnable.message());
    return isa;
  }
  return runnable_isas().back();
}

}  // namespace

bool isa_compiled(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return true;
#ifdef NORMRT_HAVE_AVX2
    case Isa::kAvx2:
      return true;
#endif
#ifdef NORMRT_HAVE_AVX512
    case Isa::kAvx512:
      return true;
#endif
#ifdef NORMRT_HAVE_NEON
    case Isa::kNeon:
      return true;
#endif
    default:
      return false;
  }
}

bool isa_runnable(Isa isa) { return isa_compiled(isa) && cpu_can_run(isa); }

std::vector<Isa> runnable_isas() {
  std::vector<Isa> isas;
  for (Isa isa : kAllIsas) {
    if (isa_runnable(isa)) isas.push_back(isa);
  }
  return isas;
}

Status check_isa_runnable(Isa isa) {
  if (!isa_compiled(isa)) {
    return Status::error(std::string("this build of normrt has no ") + isa_name(isa) +
                         " kernels (built for another architecture)");
  }
  if (!cpu_can_run(isa)) {
    return Status::error(std::string("this CPU cannot run ") + isa_name(isa) + " code");
  }
  return Status::ok();
}

bool cpu_has_amx_bf16() {
#if defined(__x86_64__) || defined(__i386__)
  // CPUID.(7, 0):EDX bit 22 (clang's __builtin_cpu_supports has no "amx-bf16"),
  // and XCR0 bits 17-18: the OS saves the tile configuration and data.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!cpu_can_run(Isa::kAvx512) || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  if ((edx & (1u << 22)) == 0) return false;
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  return (xcr0_lo & (3u << 17)) == (3u << 17);
#else
  return false;
#endif
}

const char* cpu_feature_name(CpuFeature feature) {
  switch (feature) {
    case CpuFeature::kNone:
      return "none";
    case CpuFeature::kAvx512Vnni:
      return "avx512_vnni";
    case CpuFeature::kAvxVnni:
      return "avx_vnni";
    case CpuFeature::kNeonDotProd:
      return "asimddp";
    case CpuFeature::kAvx512Bf16:
      return "avx512_bf16";
  }
  return "unknown";
}

bool cpu_has(CpuFeature feature) {
  switch (feature) {
    case CpuFeature::kNone:
      return true;
#if defined(__x86_64__) || defined(__i386__)
    case CpuFeature::kAvx512Vnni:
      // CPUID.(7, 0):ECX bit 11; the zmm state is what cpu_can_run(kAvx512) checks.
      return cpu_can_run(Isa::kAvx512) && __builtin_cpu_supports("avx512vnni");
    case CpuFeature::kAvxVnni: {
      // CPUID.(7, 1):EAX bit 4 (GCC 12's __builtin_cpu_supports has no "avxvnni").
      unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
      if (!cpu_can_run(Isa::kAvx2) || !__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) {
        return false;
      }
      return (eax & (1u << 4)) != 0;
    }
    case CpuFeature::kAvx512Bf16:
      return cpu_can_run(Isa::kAvx512) && __builtin_cpu_supports("avx512bf16");
#endif
#if defined(__aarch64__) && defined(__linux__)
    case CpuFeature::kNeonDotProd:
      return (getauxval(AT_HWCAP) & (1ul << 20)) != 0;  // HWCAP_ASIMDDP
#endif
    default:
      return false;
  }
}

const char* cpu_vendor() {
#if defined(__x86_64__) || defined(__i386__)
  static const std::string vendor = [] {
    unsigned eax = 0, words[3] = {0, 0, 0};
    if (!__get_cpuid(0, &eax, &words[0], &words[2], &words[1])) return std::string();
    return std::string(reinterpret_cast<const char*>(words), sizeof words);  // EBX, EDX, ECX
  }();
  return vendor.c_str();
#else
  return "";
#endif
}

Expected<Isa> selected_isa() {
  static const Expected<Isa> selected = resolve_isa();
  return selected;
}

}  // namespace normrt
