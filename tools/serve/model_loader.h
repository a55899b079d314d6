#pragma once
// Loading the served model into memory of its own. Model::load() maps the
// file and runs from the mapping, which follows the file: overwriting it in
// place (same inode) changes the weights under a running server (wrong
// answers), and shrinking it makes the next access fault (SIGBUS). The
// server instead reads the whole file into anonymous memory, verifies the
// copy (the format's XXH3 checksum and every structural check,
// docs/model_format.md), and serves from it: once loaded, nothing done to
// the file can reach the model. A file changed while it is being read fails
// the checksum and is refused. Cost: the file's size in private memory
// instead of shared page cache (docs/serve.md).
#include <memory>
#include <string>

#include "normrt/normrt.hpp"

namespace normrt::serve {

Expected<std::shared_ptr<const Model>> load_model_copy(const std::string& path,
                                                       const ModelOptions& options);

}  // namespace normrt::serve
