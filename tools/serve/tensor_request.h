#pragma once
// Decoding a /v1/run request's "inputs" object into graph inputs, checked
// against the model's declared inputs before anything runs.
//
// Each input is either a flat JSON array (its shape follows from the model's:
// S = count / the product of the fixed dimensions), or
//   {"shape": [d0, ...], "data": [flat, row-major], "dtype": "f32"}
// with "shape" and "dtype" optional ("dtype" must be the model's if given).
//
// Contracts (each violation is a 400 whose message names the input, the
// index, the expected and the found value):
//   - every model input present, no other names;
//   - f32 data: JSON numbers that are finite in f32. JSON has no NaN or
//     Infinity; the strings "NaN"/"Infinity", null, and numbers beyond
//     ±3.4028235e38 (e.g. 1e39, 1e999) are refused (code "non_finite_input");
//   - i32 data (token ids): JSON integers within the i32 range (3.0 is refused);
//     ids outside the vocabulary pass here and the runtime's Embedding refuses
//     them when the model runs;
//   - a shape of the model's rank whose fixed dimensions match and whose S
//     dimensions are equal, with 1 ≤ S ≤ max_sequence_length, and whose
//     element count equals the data's.
// Memory: each input's buffer has exactly the data's length (already in the
// request body); nothing is sized from a number in the request.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/serve/reply.h"

namespace normrt::serve {

/// One decoded input; owns its data until the run that reads it is over.
struct InputTensor {
  std::string name;
  bool is_i32 = false;
  std::vector<float> f32;      ///< !is_i32
  std::vector<int32_t> i32;    ///< is_i32
  std::vector<int64_t> shape;  ///< resolved (S substituted)

  const void* data() const { return is_i32 ? static_cast<const void*>(i32.data()) : f32.data(); }
  size_t bytes() const {
    return is_i32 ? i32.size() * sizeof(int32_t) : f32.size() * sizeof(float);
  }
};

/// Decodes `inputs` (the request's "inputs" value) for `model`, in the order
/// of model.inputs().
ApiResult<std::vector<InputTensor>> decode_inputs(const nlohmann::json& inputs, const Model& model);

/// Decodes one input, `spec` being a flat data array or {"shape"?, "data",
/// "dtype"?} (as in "inputs"), checked against `info` as above.
ApiResult<InputTensor> decode_input(const TensorInfo& info, const nlohmann::json& spec,
                                    size_t max_length);

/// The shape of `count` values for `info`: `given` (a JSON array, checked:
/// rank, fixed dimensions, equal S within 1..max_length, element count), or
/// inferred from the declared shape when `given` is null.
ApiResult<std::vector<int64_t>> resolve_shape(const TensorInfo& info, const nlohmann::json* given,
                                              size_t count, size_t max_length);

/// "[S, 32]" for a declared shape (-1 printed as S).
std::string declared_shape_string(const std::vector<int64_t>& shape);

}  // namespace normrt::serve
