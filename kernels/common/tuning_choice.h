#pragma once
// A kernel tuning choice that was measured to differ between CPUs (which
// cache level to prefetch into, which kernel pays): the default comes from
// the CPU, and an environment variable forces either side for measurements.

namespace normrt {

/// Whether the CPUID vendor string is `vendor` ("GenuineIntel", "AuthenticAMD").
bool cpu_vendor_is(const char* vendor);

/// `variable`'s value `off` → false, `on` → true; unset or any other value →
/// `fallback`. Callers resolve it once (a function-local static).
bool tuning_choice(const char* variable, const char* off, const char* on, bool fallback);

}  // namespace normrt
