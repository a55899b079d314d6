#pragma once
// The normrt model file (docs/model_format.md): a whole Graph, weights
// included, in one little-endian file whose weights are 64-byte aligned so
// they are used straight from a read-only mapping.
//
// Loading never trusts the file: every offset, size, count, code, name and
// tensor reference is checked (against the bytes that remain before anything
// is allocated), then the graph goes through graph_validate(). An error names
// the source, the tensor or node, the expected and the found value and the
// byte offset of the field.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// The file image of `graph`. Fails (naming the tensor or node) on a graph the
/// reader would reject: a bad name, rank > 4, a weight whose data size is not
/// elements × dtype size, a dangling tensor id, ...
Expected<std::vector<std::byte>> serialize_model(const Graph& graph);

/// Writes serialize_model(graph) to `path` through a temporary file in the
/// same directory and a rename, so `path` is either the old file or the whole
/// new one, and a failure leaves no file behind.
Status write_model_file(const Graph& graph, const std::string& path);

/// Checks and decodes a file image without graph_validate(): the format's own
/// checks only (the converter's and the tests' entry point for graphs whose
/// ops are not implemented yet). `data` must be 64-byte aligned (the weights
/// then are). Weight TensorData point into `data` (no copy) and hold `owner`,
/// which keeps the bytes alive. Errors start with `source_name`.
Expected<Graph> decode_model(const std::byte* data, size_t size, std::shared_ptr<const void> owner,
                             const std::string& source_name);

/// decode_model() followed by graph_validate().
Expected<Graph> parse_model(const std::byte* data, size_t size, std::shared_ptr<const void> owner,
                            const std::string& source_name);

/// map_file() then parse_model(): the weights stay in the mapping. The file
/// must not be modified while mapped (a shrunk file faults on access).
Expected<Graph> load_model_file(const std::string& path);

}  // namespace normrt
