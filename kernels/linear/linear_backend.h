#pragma once
// Which implementation runs a linear layer of a given shape: normrt's own
// kernels (kernels/linear/linear.h) or oneDNN's matmul
// (kernels/linear/onednn/linear_onednn.h). Decided once per node at plan time
// from a table of measurements (linear_backend.cc); ISA-free and free of
// oneDNN, so the planner can ask even where the oneDNN backend is not built.

#include <cstddef>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/linear/linear.h"

namespace normrt {

enum class LinearBackend { kNormrt, kOneDnn };

/// "normrt" or "onednn".
const char* linear_backend_name(LinearBackend backend);

struct LinearBackendQuery {
  size_t m = 1;  ///< rows per call
  size_t n = 0;  ///< output columns
  size_t k = 0;  ///< input features
  WeightType type = WeightType::kF32;
  /// oneDNN 2.6's bf16 matmul rounds x to bf16 (~1e-3 relative error, outside
  /// linear.h's 1e-5 contract): allowed only if the model opts in.
  bool allow_bf16_activations = false;
  /// False where normrt_kernels_onednn is not built (e.g. aarch64).
  bool onednn_available = true;
  /// The CPU has AMX bf16 tiles: only then is oneDNN's bf16 matmul faster
  /// than normrt's.
  bool amx_bf16 = cpu_has_amx_bf16();
  /// The output feeds a fused epilogue (norm statistics gathered per column
  /// block): only normrt's kernels compute column ranges.
  bool fused_epilogue = false;
  /// A backend forced by the user (NORMRT_LINEAR_BACKEND, for tests and
  /// measurements): taken wherever that backend can run the node at all
  /// (oneDNN: no fused epilogue, no int8, built), whatever the table says.
  bool forced = false;
  LinearBackend forced_backend = LinearBackend::kNormrt;
};

struct LinearBackendChoice {
  LinearBackend backend = LinearBackend::kNormrt;
  const char* reason = "";  ///< why, for the planner's verbose log
};

LinearBackendChoice choose_linear_backend(const LinearBackendQuery& query);

/// NORMRT_LINEAR_BACKEND, read once: unset or "" = not forced (false),
/// "normrt" or "onednn" = forced to that backend; any other value is an error
/// naming it. `backend` receives the forced backend.
Expected<bool> forced_linear_backend(LinearBackend* backend);

}  // namespace normrt
