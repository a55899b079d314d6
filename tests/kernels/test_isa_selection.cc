// ISA names, the runnable list, and selection: the best runnable ISA by
// default, or the one NORMRT_ISA forces (an error if unknown or not runnable
// here). CTest runs this suite again with NORMRT_ISA set (tests/CMakeLists.txt)
// and NORMRT_TEST_EXPECT_ISA saying what must happen: an ISA name, "error",
// or "auto" (selected if this CPU can run it, an error otherwise).

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/linear/linear.h"
#include "tests/kernels/linear_test_support.h"
#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

// The variable's value, or "" if unset.
std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#if defined(__x86_64__) || defined(__i386__)
// The CPU feature flags the Linux kernel reports (the first "flags" line of
// /proc/cpuinfo; empty if there is none).
std::set<std::string> cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}
#endif

}  // namespace

TEST_SUITE("isa_selection") {
  TEST_CASE("cpu_has(avx512_bf16) and cpu_has_amx_bf16 agree with /proc/cpuinfo") {
#if defined(__x86_64__) || defined(__i386__)
    const std::set<std::string> flags = cpuinfo_flags();
    REQUIRE_FALSE(flags.empty());
    auto has = [&](const char* f) { return flags.count(f) > 0; };
    const bool avx512 = has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512cd") &&
                        has("avx512vl") && has("fma");
    CHECK(isa_runnable(Isa::kAvx512) == avx512);
    CHECK(cpu_has(CpuFeature::kAvx512Bf16) == (avx512 && has("avx512_bf16")));
    CHECK(cpu_has_amx_bf16() == (avx512 && has("amx_bf16")));
#else
    // Not x86 (under qemu /proc/cpuinfo may even describe the x86 host).
    CHECK_FALSE(cpu_has(CpuFeature::kAvx512Bf16));
    CHECK_FALSE(cpu_has_amx_bf16());
#endif
  }

  TEST_CASE("cpu_has(avx512_vnni, avx_vnni, asimddp) agrees with the CPU") {
    CHECK(cpu_has(CpuFeature::kNone));
#if defined(__x86_64__) || defined(__i386__)
    const std::set<std::string> flags = cpuinfo_flags();
    REQUIRE_FALSE(flags.empty());
    auto has = [&](const char* f) { return flags.count(f) > 0; };
    CHECK(cpu_has(CpuFeature::kAvx512Vnni) == (isa_runnable(Isa::kAvx512) && has("avx512_vnni")));
    CHECK(cpu_has(CpuFeature::kAvxVnni) == (isa_runnable(Isa::kAvx2) && has("avx_vnni")));
    CHECK_FALSE(cpu_has(CpuFeature::kNeonDotProd));
    CHECK_FALSE(std::string(cpu_vendor()).empty());  // CPUID leaf 0 always has one
#else
    CHECK_FALSE(cpu_has(CpuFeature::kAvx512Vnni));
    CHECK_FALSE(cpu_has(CpuFeature::kAvxVnni));
    // The aarch64 CTest entries run under qemu with a CPU that has the dot
    // product (QEMU_CPU=max) and say so: the sdot kernel must then run.
    if (env("NORMRT_TEST_EXPECT_DOTPROD") == "1") CHECK(cpu_has(CpuFeature::kNeonDotProd));
#endif
    for (CpuFeature f : kAllCpuFeatures) {
      CHECK(std::string(cpu_feature_name(f)) != "unknown");
    }
  }

  TEST_CASE("int8 weights under the selected ISA: its kernel or a stated fallback, correct") {
    const Expected<Isa> selected = selected_isa();
    if (!selected.is_ok()) return;  // a bad NORMRT_ISA: the case above checks the error
    const Expected<LinearVariantChoice> choice =
        choose_linear_variant(WeightType::kInt8, *selected);
    REQUIRE_MESSAGE(choice.is_ok(), choice.status().message());
    const std::string reason = choice->reason;
    MESSAGE(reason);
    const LinearVariant& v = *choice->variant;
    CHECK(linear_variant_runnable(v));
    // The same ISA, or a lower one of its family after a stated fallback.
    CHECK((v.isa == *selected || contains(reason, "fallback")));
    const size_t m = 3, n = 70, k = 37;
    const LinearProblem p = make_problem(m, n, k, WeightType::kInt8, true, 19);
    Expected<PackedWeights> w = pack_weights(p.w.data(), n, k, WeightType::kInt8, *selected);
    REQUIRE_MESSAGE(w.is_ok(), w.status().message());
    CHECK(&w->variant() == &v);
    GuardedOutput y(m, n, 1);
    REQUIRE(linear(*w, p.x.data(), m, k, y.data(), n, p.bias.data()).is_ok());
    const std::string failure = check_output(p, y, 0, n);
    CHECK_MESSAGE(failure.empty(), failure);
  }

  TEST_CASE("isa names round-trip through isa_from_name") {
    for (Isa isa : kAllIsas) {
      const Expected<Isa> parsed = isa_from_name(isa_name(isa));
      REQUIRE_MESSAGE(parsed.is_ok(), isa_label(isa) << ": " << parsed.status().message());
      CHECK(*parsed == isa);
    }
    for (const char* bad : {"", "bogus", "avx", "sse2"}) {
      INFO("name: \"" << std::string(bad) << "\"");
      CHECK_FALSE(isa_from_name(bad).is_ok());
    }
  }

  TEST_CASE("runnable_isas lists every runnable ISA, worst to best, starting with scalar") {
    const std::vector<Isa> runnable = runnable_isas();
    REQUIRE_FALSE(runnable.empty());
    CHECK(runnable.front() == Isa::kScalar);
    std::vector<Isa> expected;
    for (Isa isa : kAllIsas) {
      if (isa_runnable(isa)) expected.push_back(isa);
      CHECK_MESSAGE(!(isa_runnable(isa) && !isa_compiled(isa)),
                    isa_label(isa) << " runnable but not compiled");
    }
    CHECK(runnable == expected);
    std::string names;
    for (Isa isa : runnable) names += std::string(" ") + isa_name(isa);
    MESSAGE("runnable ISAs (all tested):" << names);
  }

  TEST_CASE("the ISAs of the build's architecture are compiled, with a kernel each") {
    CHECK(isa_compiled(Isa::kScalar));
#if defined(__x86_64__) || defined(_M_X64)
    CHECK(isa_compiled(Isa::kAvx2));
    CHECK(isa_compiled(Isa::kAvx512));
    CHECK_FALSE(isa_compiled(Isa::kNeon));
#elif defined(__aarch64__)
    CHECK(isa_compiled(Isa::kNeon));
    CHECK_FALSE(isa_compiled(Isa::kAvx2));
    CHECK_FALSE(isa_compiled(Isa::kAvx512));
#endif
    for (Isa isa : kAllIsas) {
      INFO("isa: " << isa_label(isa));
      const bool has_kernel = norm_kernel_for(isa) != nullptr;
      CHECK(has_kernel == isa_compiled(isa));
    }
  }

  TEST_CASE("check_isa_runnable explains why an ISA cannot run") {
    for (Isa isa : kAllIsas) {
      INFO("isa: " << isa_label(isa));
      const Status status = check_isa_runnable(isa);
      CHECK(status.is_ok() == isa_runnable(isa));
      if (!status.is_ok()) {
        CHECK_MESSAGE(contains(status.message(), isa_name(isa)),
                      "message \"" << status.message() << "\" does not name " << isa_label(isa));
      }
    }
#if defined(__x86_64__) || defined(_M_X64)
    CHECK_FALSE(check_isa_runnable(Isa::kNeon).is_ok());
#endif
  }

  TEST_CASE("selected_isa is the best runnable ISA, or the one NORMRT_ISA forces") {
    const std::string forced = env("NORMRT_ISA");
    const std::string expect = env("NORMRT_TEST_EXPECT_ISA");
    const Expected<Isa> selected = selected_isa();
    if (forced.empty()) {
      REQUIRE_MESSAGE(selected.is_ok(), selected.status().message());
      CHECK(*selected == runnable_isas().back());
      CHECK_MESSAGE(expect.empty(), "NORMRT_TEST_EXPECT_ISA is set but NORMRT_ISA is not");
      return;
    }
    INFO("NORMRT_ISA=" << forced << " NORMRT_TEST_EXPECT_ISA=" << expect);
    const Expected<Isa> parsed = isa_from_name(forced);
    const bool must_fail = !parsed.is_ok() || !isa_runnable(*parsed);
    if (expect == "error") {
      CHECK_MESSAGE(must_fail, "NORMRT_ISA names an ISA that runs here, but an error was expected");
    } else if (!expect.empty() && expect != "auto") {
      CHECK_MESSAGE(!must_fail, "NORMRT_ISA should select " << expect);
      CHECK_MESSAGE(forced == expect, "the CTest entry is inconsistent");
    }
    if (must_fail) {
      REQUIRE_MESSAGE(!selected.is_ok(), "selected_isa() accepted " << forced);
      CHECK_MESSAGE(contains(selected.status().message(), forced),
                    "message \"" << selected.status().message() << "\" does not name " << forced);
      const Expected<NormKernel> kernel = selected_norm_kernel();
      CHECK_FALSE(kernel.is_ok());
      if (parsed.is_ok()) {  // a real ISA this CPU cannot run
        const Status runnable = check_isa_runnable(*parsed);
        CHECK_FALSE(runnable.is_ok());
        CHECK_FALSE(runnable.message().empty());
      }
    } else {
      REQUIRE_MESSAGE(selected.is_ok(), selected.status().message());
      CHECK(*selected == *parsed);
    }
  }

  TEST_CASE("selected_norm_kernel and norm use the selected ISA's kernel") {
    const Expected<Isa> selected = selected_isa();
    const Expected<NormKernel> kernel = selected_norm_kernel();
    CHECK(kernel.is_ok() == selected.is_ok());
    // 37 floats, then 64 canaries that must survive (an overrun shows here
    // rather than as heap corruption).
    constexpr size_t kN = 37, kSlack = 64;
    std::vector<float> x(kN), y_norm(kN + kSlack, -7.0f);
    for (size_t i = 0; i < kN; ++i) x[i] = 0.25f * static_cast<float>(i) - 3.0f;
    NormParams params;
    params.kind = NormKind::kRmsNorm;
    NormRows rows;
    rows.n = kN;
    rows.src = x.data();
    rows.src_stride = kN;
    rows.dst = y_norm.data();
    rows.dst_stride = kN;
    const Status ran = norm(params, rows);
    if (!selected.is_ok()) {
      CHECK_FALSE(ran.is_ok());  // a bad NORMRT_ISA fails the checked entry point too
      return;
    }
    REQUIRE(kernel.is_ok());
    const bool same_kernel = *kernel == norm_kernel_for(*selected);
    CHECK_MESSAGE(same_kernel, "selected_norm_kernel is not norm_kernel_for(selected_isa())");
    REQUIRE_MESSAGE(ran.is_ok(), ran.message());
    CHECK(std::vector<float>(y_norm.begin() + kN, y_norm.end()) ==
          std::vector<float>(kSlack, -7.0f));
    y_norm.resize(kN);
    const std::vector<float> y_kernel = run_simple(*kernel, simple_case(params, kN, x));
    CHECK(y_norm == y_kernel);
  }
}

}  // namespace normrt::testing
