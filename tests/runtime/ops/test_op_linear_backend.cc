// The Linear op on the backend the table or NORMRT_LINEAR_BACKEND chooses
// (ctest runs this suite twice: as is, and with NORMRT_LINEAR_BACKEND=onednn,
// which puts every f32 and bf16 Linear on oneDNN's matmul): the same results
// within linear.h's contract, f32 and bf16 with bf16 activations (x rounded
// where the chosen kernel rounds it), odd K and N, S from 1 to 9; and the
// choice with its reason.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "base/bf16.h"
#include "kernels/linear/linear.h"
#include "kernels/linear/onednn/linear_onednn.h"
#include "runtime/exec/thread_limit.h"
#include "tests/runtime/ops/op_reference.h"
#include "tests/runtime/ops/op_test_support.h"

namespace normrt::testing {
namespace {

bool forced(const char* backend) {
  const char* value = std::getenv("NORMRT_LINEAR_BACKEND");
  return value != nullptr && std::string(value) == backend;
}
bool forced_onednn() { return forced("onednn"); }

float round_bf16(float v) { return float_from_bf16(bf16_from_float(v)); }

void check_backend_case(size_t k, size_t n, bool bf16) {
  INFO("K " << k << " N " << n << (bf16 ? " bf16 weights, bf16 activations" : " f32"));
  OpHarness h;
  h.bf16_activations = bf16;
  std::vector<float> w = random_floats(n * k, -1, 1, 41);
  if (bf16) w = from_bf16(to_bf16(w));
  const std::vector<float> bias = random_floats(n, -1, 1, 42);
  TensorId x = h.input("x", {kSequenceDim, static_cast<int64_t>(k)});
  TensorId wt =
      bf16 ? h.weight_bf16("W", {static_cast<int64_t>(n), static_cast<int64_t>(k)}, to_bf16(w))
           : h.weight("W", {static_cast<int64_t>(n), static_cast<int64_t>(k)}, w);
  TensorId bt = h.weight("b", {static_cast<int64_t>(n)}, bias);
  TensorId y = h.intermediate("y", {kSequenceDim, static_cast<int64_t>(n)});
  h.node(OpType::kLinear, "fc", {x, wt, bt}, {y});
  REQUIRE(h.validate().is_ok());
  auto kernel = h.create(runnable_isas().back());
  REQUIRE_MESSAGE(kernel.is_ok(), kernel.status().message());
  const std::string choice = (*kernel)->kernel_choice();
  INFO("choice: " << choice);
  // The table keeps normrt except for bf16 activations on a CPU with AMX;
  // forced, every f32/bf16 Linear is the forced backend's.
  const bool on_onednn = choice.rfind("onednn", 0) == 0;
  CHECK(on_onednn == (forced_onednn() || (!forced("normrt") && bf16 && cpu_has_amx_bf16())));
  // x is rounded to bf16 by oneDNN's bf16 matmul, or by normrt's kernel for
  // bf16 activations where this CPU runs it (linear.h).
  Expected<LinearVariantChoice> fast =
      choose_linear_variant_bf16_activations(runnable_isas().back());
  REQUIRE(fast.is_ok());
  const bool rounds_x = bf16 && (on_onednn || fast->variant->rounds_x_to_bf16);
  for (size_t sequence : {1, 2, 9}) {
    const std::vector<float> xs = random_floats(sequence * k, -1, 1, 43 + sequence);
    h.set(x, xs);
    REQUIRE(h.run(**kernel, sequence).is_ok());
    const std::vector<float> ys = h.get(y);
    size_t failures = 0;
    for (size_t row = 0; row < sequence; ++row) {
      for (size_t j = 0; j < n; ++j) {
        double dot = bias[j], magnitude = std::fabs(bias[j]);
        for (size_t i = 0; i < k; ++i) {
          const double xv = rounds_x ? round_bf16(xs[row * k + i]) : xs[row * k + i];
          dot += xv * w[j * k + i];
          magnitude += std::fabs(xv * w[j * k + i]);
        }
        const double tolerance = 1e-5 * magnitude + 1e-30;
        const double got = ys[row * n + j];
        if (!(std::fabs(got - dot) <= tolerance) && failures++ < 5) {
          FAIL_CHECK(mismatch(row * n + j, got, dot, tolerance));
        }
      }
    }
    CHECK(failures == 0);
  }
}

}  // namespace

TEST_SUITE("linear_backend_ops") {
  TEST_CASE("Linear on the chosen backend matches the double reference (f32, bf16 activations)") {
    for (auto [k, n] : {std::pair<size_t, size_t>{1, 1}, {17, 3}, {257, 33}, {384, 100}}) {
      check_backend_case(k, n, false);
      if (cpu_has(CpuFeature::kAvx512Bf16) || forced_onednn()) check_backend_case(k, n, true);
    }
  }

  TEST_CASE("oneDNN's matmul run for one thread (a one-thread session's Linear) keeps to one CPU") {
    // oneDNN's OpenMP threads used to default to every CPU of the process
    // whatever the session asked; LinearOp passes run_rows() its session's
    // thread count. Process CPU time against wall time over ~0.1 s of calls:
    // one thread cannot exceed 1 (plus the clocks' grain). It can fail only
    // where the process may use more than one CPU.
    const size_t k = 1024, n = 1024, rows = 9;
    const std::vector<float> w = random_floats(n * k, -1, 1, 51);
    const std::vector<float> x = random_floats(rows * k, -1, 1, 52);
    std::vector<float> y(rows * n);
    auto matmul = OneDnnLinear::create_any_rows(w.data(), n, k, WeightType::kF32, false);
    REQUIRE_MESSAGE(matmul.is_ok(), matmul.status().message());
    REQUIRE((*matmul)->run_rows(x.data(), rows, y.data(), nullptr, 1).is_ok());  // start-up
    auto cpu_seconds = [] {
      timespec t{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    const double cpu0 = cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    size_t calls = 0;
    while (std::chrono::steady_clock::now() - wall0 < std::chrono::milliseconds(100)) {
      REQUIRE((*matmul)->run_rows(x.data(), rows, y.data(), nullptr, 1).is_ok());
      ++calls;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const double cpu = cpu_seconds() - cpu0;
    MESSAGE(calls << " calls (" << (*matmul)->impl_name() << "): " << cpu << " s of CPU in " << wall
                  << " s; CPUs this process may use: " << available_cpus());
    CHECK(cpu <= 1.1 * wall + 0.005);
  }
}

}  // namespace normrt::testing
