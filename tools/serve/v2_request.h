#pragma once
// The body of a KServe v2 / Open Inference Protocol inference request
// (POST /v2/models/{name}/infer), with the binary tensor data extension:
//
//   {"id"?: "...", "parameters"?: {"binary_data_output"?: bool, ...},
//    "inputs": [{"name", "shape": [d, ...], "datatype": "FP32" | "INT32" | "INT64" | "BYTES",
//                "parameters"?: {"binary_data_size"?: n}, "data"?: [...]}],
//    "outputs"?: [{"name", "parameters"?: {"binary_data"?: bool}}]}
//
// An input's "data" is a JSON array, flat or nested (row-major), or, with
// "binary_data_size", that many bytes of the binary section that follows the
// JSON (Inference-Header-Content-Length bytes of it), in input order.
// Other parameters are ignored; shared memory and classification are
// refused (not supported). Every error is a 400 naming the input or output.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/serve/reply.h"

namespace normrt::serve {

struct V2Input {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;
  size_t elements = 0;  ///< the product of `shape`
  bool binary = false;
  nlohmann::json data;     ///< !binary: the elements, flattened
  std::string_view bytes;  ///< binary: its part of the binary section
};

struct V2Output {
  std::string name;
  bool binary = false;
};

struct V2Request {
  std::optional<std::string> id;
  std::vector<V2Input> inputs;
  std::vector<V2Output> outputs;  ///< empty: every output
  bool binary_outputs = false;    ///< "binary_data_output": the default of every output
};

/// Reads `header` (the JSON part, moved from) and `binary` (the bytes after
/// it; empty without the binary extension). Shapes have at most 8 dimensions
/// of at most 2^31 each.
ApiResult<V2Request> parse_v2_request(nlohmann::json& header, std::string_view binary);

/// The BYTES elements of `input`: JSON strings, or binary elements (a 4-byte
/// little-endian length, then the bytes).
ApiResult<std::vector<std::string>> v2_bytes_elements(V2Input& input);

/// "FP32" for "f32", "INT32" for "i32".
std::string v2_datatype(std::string_view dtype);

}  // namespace normrt::serve
