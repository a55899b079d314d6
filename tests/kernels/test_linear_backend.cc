// The backend table: normrt unless oneDNN is clearly faster and accurate enough.

#include <doctest/doctest.h>

#include <string>

#include "kernels/linear/linear_backend.h"

namespace normrt::testing {

TEST_SUITE("linear") {
  TEST_CASE("the backend table keeps normrt unless oneDNN is faster and accurate enough") {
    LinearBackendQuery q;
    q.n = q.k = 1024;
    for (size_t m : {1, 16, 128}) {
      q.m = m;
      q.type = WeightType::kF32;
      q.amx_bf16 = true;
      CHECK(choose_linear_backend(q).backend == LinearBackend::kNormrt);  // on par or faster
      q.type = WeightType::kBF16;
      q.allow_bf16_activations = false;
      CHECK(choose_linear_backend(q).backend == LinearBackend::kNormrt);  // accuracy first
      q.allow_bf16_activations = true;
      const LinearBackendChoice choice = choose_linear_backend(q);
      INFO("m = " << m << ": " << std::string(choice.reason));
      CHECK(choice.backend == (m >= 16 ? LinearBackend::kOneDnn : LinearBackend::kNormrt));
      q.amx_bf16 = false;  // oneDNN's bf16 matmul without AMX: slower than normrt
      CHECK(choose_linear_backend(q).backend == LinearBackend::kNormrt);
      q.amx_bf16 = true;
      q.fused_epilogue = true;  // column ranges exist only in normrt
      CHECK(choose_linear_backend(q).backend == LinearBackend::kNormrt);
      q.fused_epilogue = false;
      q.onednn_available = false;
      CHECK(choose_linear_backend(q).backend == LinearBackend::kNormrt);
      q.onednn_available = true;
    }
    q.type = WeightType::kInt8;  // no int8 oneDNN backend: always normrt, said so
    for (size_t m : {1, 16, 128}) {
      q.m = m;
      const LinearBackendChoice choice = choose_linear_backend(q);
      CHECK(choice.backend == LinearBackend::kNormrt);
      CHECK(std::string(choice.reason).find("int8") != std::string::npos);
    }
    CHECK(std::string(linear_backend_name(LinearBackend::kOneDnn)) == "onednn");
  }
}

}  // namespace normrt::testing
