// libFuzzer target: the input bytes as a model file (docs/model_format.md).
//
// Each input goes the way Model::load() takes a file: decode_model() (every
// format check), compile_model() (graph_validate(), the passes, kernels,
// memory plan: with the decode, what parse_model() and Model::load() do), then a Session runs it on
// zero-filled inputs with a small S and once more with S = 1 (a stateful model: RNN state, KV
// cache). Errors are the expected outcome for almost every input; only a crash, a sanitizer report,
// a leak, a hang or a broken FUZZ_CHECK counts as a finding.
//
// Properties beyond "no crash":
//   - a file that decodes re-encodes (serialize_model) to bytes that decode
//     again and re-encode to the very same bytes (reader and writer agree);
//   - the passes keep a valid graph valid (compile_model() never fails in
//     its re-validation after them);
//   - a model that compiles runs or fails with an error, under two option
//     sets (passes on with the best ISA; passes off with the scalar kernels).
//
// Bounds, so that the fuzzer finds bugs rather than its own memory limit:
// sessions whose arena + state + workspace + inputs exceed kMaxSessionBytes
// are not created. The loader itself is not bounded here: allocating a size
// read blindly from the file is exactly what this target must catch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime/format/little_endian.h"
#include "runtime/format/model_checksum.h"
#include "runtime/format/model_file.h"
#include "runtime/format/model_format.h"

namespace {

using namespace normrt;

constexpr size_t kMaxSessionBytes = size_t{4} << 20;
constexpr size_t kRunSequenceLength = 3;

/// A 64-byte aligned copy of `size` bytes (decode_model() requires the
/// alignment a file mapping has). Holds at least one byte.
std::shared_ptr<std::byte> aligned_copy(const void* data, size_t size) {
  const size_t alignment = model_format::kDataAlignment;
  auto* bytes = static_cast<std::byte*>(
      ::operator new(std::max<size_t>(size, 1), std::align_val_t(alignment)));
  if (size > 0) std::memcpy(bytes, data, size);
  return std::shared_ptr<std::byte>(bytes, [](std::byte* p) {
    ::operator delete(p, std::align_val_t(model_format::kDataAlignment));
  });
}

/// Mutations break the header's file size and checksum on nearly every
/// input, which would stop it at the framing checks. This restamps both so
/// that the structural checks behind them are fuzzed too (the raw bytes are
/// parsed first, so the framing checks are not skipped). False when the
/// image is too short or not a model file at all.
bool repair_framing(std::byte* image, size_t size) {
  if (size < model_format::kHeaderSize) return false;
  if (std::memcmp(image, model_format::kMagic, sizeof(model_format::kMagic)) != 0) return false;
  little_endian::store<uint64_t>(image + model_format::kFileSizeField, size);
  return static_cast<bool>(restamp_model_checksum(image, size));
}

/// decode(serialize(graph)) re-serializes to the same bytes.
void check_round_trip(const Graph& graph) {
  Expected<std::vector<std::byte>> first = serialize_model(graph);
  FUZZ_CHECK(first.is_ok(), "a decoded graph does not serialize: %s",
             first.status().message().c_str());
  std::shared_ptr<std::byte> copy = aligned_copy(first->data(), first->size());
  Expected<Graph> again = decode_model(copy.get(), first->size(), copy, "re-encoded");
  FUZZ_CHECK(again.is_ok(), "a re-encoded graph does not decode: %s",
             again.status().message().c_str());
  Expected<std::vector<std::byte>> second = serialize_model(*again);
  FUZZ_CHECK(second.is_ok() && *second == *first,
             "decode(serialize(graph)) serializes to other bytes (%zu vs %zu bytes)",
             second ? second->size() : size_t{0}, first->size());
}

/// Bytes of every graph input at S = `length`, or SIZE_MAX past the bound.
size_t input_bytes(const Model& model, size_t length) {
  const Graph& graph = model.impl().graph;
  size_t total = 0;
  for (TensorId id : graph.inputs) {
    const Tensor& tensor = graph.tensors[id];
    const size_t bytes = shape_elements(tensor.shape, length) * data_type_size(tensor.dtype);
    if (bytes > kMaxSessionBytes - total) return SIZE_MAX;
    total += bytes;
  }
  return total;
}

/// Binds zero-filled inputs of S = `length` and runs once; then reads every
/// output (a view must point at data of the declared rank).
void run_once(Session& session, const Model& model, size_t length, std::vector<std::byte>& zeros) {
  const Graph& graph = model.impl().graph;
  for (TensorId id : graph.inputs) {
    const Tensor& tensor = graph.tensors[id];
    const size_t bytes = shape_elements(tensor.shape, length) * data_type_size(tensor.dtype);
    if (zeros.size() < bytes) zeros.resize(bytes);
    // An input of 0 bytes is refused by set_input(); run() then reports it unbound.
    if (!session.set_input(tensor.name, zeros.data(), bytes)) return;
  }
  if (!session.run()) return;
  for (const TensorInfo& info : model.outputs()) {
    Expected<TensorRef> output = session.output(info.name);
    FUZZ_CHECK(output.is_ok(), "declared output '%s' cannot be read: %s", info.name.c_str(),
               output.status().message().c_str());
    FUZZ_CHECK(output->shape.rank == info.shape.size(), "output '%s': rank %zu, declared %zu",
               info.name.c_str(), output->shape.rank, info.shape.size());
  }
}

void compile_and_run(Graph graph, const ModelOptions& options) {
  Expected<std::shared_ptr<const Model>> model = compile_model(std::move(graph), options);
  if (!model) {
    // compile_model() validates the graph again after the passes, which
    // promise valid graphs (compiled_model.cc): failing there is a pass bug.
    const std::string message = model.status().message();
    FUZZ_CHECK(message.rfind("after the graph passes", 0) != 0, "%s", message.c_str());
    return;
  }
  const Model& compiled = **model;
  const MemoryPlan& plan = compiled.impl().plan;
  const size_t length = std::min<size_t>(kRunSequenceLength, compiled.max_sequence_length());
  const size_t inputs = input_bytes(compiled, length);
  const size_t planned = plan.arena_bytes + plan.state_bytes + plan.workspace_bytes;
  if (inputs == SIZE_MAX || planned > kMaxSessionBytes - inputs) return;

  Expected<std::unique_ptr<Session>> session = Session::create(*model);
  if (!session) return;
  std::vector<std::byte> zeros;
  run_once(**session, compiled, length, zeros);
  if (!compiled.states().empty()) run_once(**session, compiled, 1, zeros);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<std::byte> image = aligned_copy(data, size);
  // As is first: the framing checks (magic, version, size, checksum) see the input.
  Expected<Graph> graph = decode_model(image.get(), size, image, "fuzz input");
  if (!graph) {
    if (!repair_framing(image.get(), size)) return 0;
    graph = decode_model(image.get(), size, image, "fuzz input");
    if (!graph) return 0;
  }
  check_round_trip(*graph);

  // compile_model() starts with graph_validate(): Model::load()'s parse_model().
  ModelOptions fast;  // the passes on, the best ISA of this CPU
  compile_and_run(*graph, fast);
  ModelOptions plain;
  plain.isa = "scalar";
  plain.fuse = false;
  plain.fold_norm_affine = false;
  compile_and_run(std::move(graph).value(), plain);
  return 0;
}
