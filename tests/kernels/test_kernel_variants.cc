// The kernel families' variant lists against the build's ISA list
// (cmake/kernel_isas.cmake, passed in as NORMRT_TEST_BUILD_ISAS: the names of
// the ISAs and extensions compiled for this architecture). The lists are what
// dispatch, the tests and the benchmarks iterate, so a variant missing from a
// list, or a list entry for an ISA the build does not compile, shows here.

#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/activation/activation.h"
#include "kernels/attention/attention.h"
#include "kernels/linear/linear.h"
#include "kernels/norm/norm.h"
#include "kernels/norm/norm_spatial.h"
#include "kernels/rnn/rnn_gates.h"
#include "tests/kernels/variant_test_support.h"

#ifndef NORMRT_TEST_BUILD_ISAS
#error "tests/CMakeLists.txt passes NORMRT_TEST_BUILD_ISAS"
#endif

namespace normrt::testing {
namespace {

struct Family {
  std::string name;
  std::vector<const KernelVariant*> variants;
};

template <class Variant>
Family family(const char* name, const std::vector<Variant>& list) {
  Family f{name, {}};
  for (const Variant& variant : list) f.variants.push_back(&variant);
  return f;
}

std::vector<Family> all_families() {
  return {family("norm", norm_variants()),
          family("norm_spatial", norm_spatial_variants()),
          family("linear", linear_variants()),
          family("activation", activation_variants()),
          family("rnn_gates", detail::rnn_gates_variants()),
          family("attention", attention_variants())};
}

// The names in NORMRT_TEST_BUILD_ISAS ("avx2 avx512 avx_vnni ...").
std::set<std::string> build_isas() {
  std::istringstream words(NORMRT_TEST_BUILD_ISAS);
  std::set<std::string> names;
  for (std::string w; words >> w;) names.insert(w);
  return names;
}

}  // namespace

TEST_SUITE("variants") {
  TEST_CASE("exactly the ISAs of the build's list are compiled") {
    const std::set<std::string> built = build_isas();
    CHECK(isa_compiled(Isa::kScalar));
    for (Isa isa : kAllIsas) {
      if (isa == Isa::kScalar) continue;
      INFO("isa: " << isa_name(isa));
      CHECK(isa_compiled(isa) == (built.count(isa_name(isa)) > 0));
    }
  }

  TEST_CASE("every family has a scalar variant and one for each compiled ISA") {
    for (const Family& f : all_families()) {
      for (Isa isa : kAllIsas) {
        INFO(f.name << " on " << isa_name(isa));
        bool has = false;
        for (const KernelVariant* v : f.variants) has = has || v->isa == isa;
        CHECK(has == isa_compiled(isa));
      }
    }
  }

  TEST_CASE(
      "every variant's ISA and extension are in the build's list, and every extension is used") {
    const std::set<std::string> built = build_isas();
    std::set<std::string> features_used;
    std::set<std::string> names;
    for (const Family& f : all_families()) {
      for (const KernelVariant* v : f.variants) {
        INFO(f.name << ": " << variant_label(*v));
        CHECK(isa_compiled(v->isa));
        CHECK_MESSAGE(names.insert(v->name).second, "two variants share a name");
        if (v->feature != CpuFeature::kNone) {
          features_used.insert(cpu_feature_name(v->feature));
          CHECK(built.count(cpu_feature_name(v->feature)) == 1);
        }
      }
    }
    for (CpuFeature feature : kAllCpuFeatures) {
      const std::string name = cpu_feature_name(feature);
      if (built.count(name) == 0) continue;
      CHECK_MESSAGE(features_used.count(name) == 1,
                    name << " is compiled (cmake/kernel_isas.cmake) but no variant needs it");
    }
  }

  TEST_CASE("each family's kernel_for(isa) is its first variant of that ISA") {
    for (Isa isa : kAllIsas) {
      INFO("isa: " << isa_name(isa));
      const NormVariant* norm = first_variant_for(norm_variants(), isa);
      CHECK((norm_kernel_for(isa) == (norm != nullptr ? norm->kernel : nullptr)));
      const NormSpatialVariant* spatial = first_variant_for(norm_spatial_variants(), isa);
      CHECK((norm_spatial_kernel_for(isa) == (spatial != nullptr ? spatial->kernel : nullptr)));
      const ActivationVariant* act = first_variant_for(activation_variants(), isa);
      CHECK((activation_kernel_for(isa) == (act != nullptr ? act->kernel : nullptr)));
      const AttentionVariant* att = first_variant_for(attention_variants(), isa);
      CHECK((attention_kernel_for(isa) == (att != nullptr ? att->kernel : nullptr)));
      const detail::RnnGatesVariant* gates = first_variant_for(detail::rnn_gates_variants(), isa);
      CHECK((detail::rnn_gate_ops_for(isa) == (gates != nullptr ? &gates->ops() : nullptr)));
    }
  }

  TEST_CASE("first_variant_for skips entries whose extension the CPU lacks, in list order") {
    // A made-up list: an extension entry before the plain one it beats.
    const std::vector<KernelVariant> list = {
        {"vnni_first", Isa::kScalar, CpuFeature::kAvx512Vnni},
        {"plain", Isa::kScalar},
        {"plain_second", Isa::kScalar},
        {"avx2", Isa::kAvx2},
    };
    const KernelVariant* scalar = first_variant_for(list, Isa::kScalar);
    REQUIRE(scalar != nullptr);
    CHECK(std::string(scalar->name) == (cpu_has(CpuFeature::kAvx512Vnni) ? "vnni_first" : "plain"));
    const KernelVariant* avx2 = first_variant_for(list, Isa::kAvx2);
    REQUIRE(avx2 != nullptr);
    CHECK(std::string(avx2->name) == "avx2");  // whether or not this CPU runs AVX2
    CHECK(first_variant_for(list, Isa::kNeon) == nullptr);
  }

  TEST_CASE("runnable_variants lists exactly the entries this CPU can run, in list order") {
    for (const Family& f : all_families()) {
      std::vector<const KernelVariant*> expected;
      for (const KernelVariant* v : f.variants) {
        if (isa_runnable(v->isa) && cpu_has(v->feature)) expected.push_back(v);
      }
      std::vector<const KernelVariant*> got;
      if (f.name == "norm") {
        for (const NormVariant* v : normrt::runnable_variants(norm_variants())) got.push_back(v);
      } else if (f.name == "linear") {
        for (const LinearVariant* v : normrt::runnable_variants(linear_variants()))
          got.push_back(v);
      } else if (f.name == "activation") {
        for (const ActivationVariant* v : normrt::runnable_variants(activation_variants())) {
          got.push_back(v);
        }
      } else {
        continue;
      }
      CHECK_MESSAGE(got == expected, f.name);
      std::string names;
      for (const KernelVariant* v : got) names += std::string(" ") + v->name;
      MESSAGE(f.name << " variants runnable here (all tested):" << names);
    }
  }
}

}  // namespace normrt::testing
