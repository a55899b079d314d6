#pragma once
// The converter's last step for one file or RNNSearch's pair: every graph is
// serialized and written under a temporary name, then loaded as the runtime
// would (Model::load: the format checks, the passes, a kernel per node, the
// memory plan; then a Session), and only when every file loads are they
// renamed into place (output_file.h). A file that would not load is never
// written.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"
#include "tools/output/output_file.h"

namespace normrt {

struct OutputGraph {
  const Graph* graph = nullptr;
  OutputTarget target;
};

/// Writes, checks and renames every output; returns the bytes written.
/// Warnings (a folder that could not be flushed) are appended to `warnings`.
Expected<uint64_t> write_checked_outputs(const std::vector<OutputGraph>& outputs,
                                         std::vector<std::string>* warnings);

/// Loads `path` with Model::load and creates a Session on it; an error says
/// that `name`'s converted model does not load and why.
Status check_model_loads(const std::string& path, const std::string& name);

}  // namespace normrt
