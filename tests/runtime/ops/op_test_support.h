#pragma once
// Test harness for ops: builds a graph (usually of one node), validates it,
// creates the node's kernel and runs it on buffers owned by the harness, with
// the sequence length S chosen per run. Weights are owned by the graph.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/isa.h"
#include "runtime/graph/graph.h"
#include "runtime/ops/op.h"

namespace normrt::testing {

bool contains(const std::string& text, const std::string& part);

/// Uniform floats in [lo, hi), reproducible from `seed`.
std::vector<float> random_floats(size_t count, float lo, float hi, uint32_t seed);

/// The float values of bfloat16 bits, and floats rounded to bf16 bits.
std::vector<uint16_t> to_bf16(const std::vector<float>& values);
std::vector<float> from_bf16(const std::vector<uint16_t>& bits);

class OpHarness {
 public:
  OpHarness() { graph.max_sequence_length = 64; }

  Graph graph;
  /// OpBuildContext::bf16_activations for create().
  bool bf16_activations = false;

  /// A weight tensor as made elsewhere (e.g. make_int8_weight()).
  TensorId weight_tensor(Tensor tensor);

  /// A kInput tensor (listed in graph.inputs).
  TensorId input(const std::string& name, const Shape& shape, DataType dtype = DataType::kF32);
  /// A kWeight tensor owning a copy of `values` (f32, or bf16 bits, or i32).
  TensorId weight(const std::string& name, const Shape& shape, const std::vector<float>& values);
  TensorId weight_bf16(const std::string& name, const Shape& shape,
                       const std::vector<uint16_t>& bits);
  /// A kIntermediate tensor (a node output).
  TensorId intermediate(const std::string& name, const Shape& shape,
                        DataType dtype = DataType::kF32);
  /// A kState tensor.
  TensorId state(const std::string& name, const Shape& shape, DataType dtype = DataType::kF32);

  /// Appends a node; its outputs become graph outputs. Returns its index.
  size_t node(OpType op, const std::string& name, std::vector<TensorId> inputs,
              std::vector<TensorId> outputs, std::vector<Attribute> attributes = {});

  /// The schema's infer_shapes() for node `index` (default: the last).
  Status infer(size_t index = kLast) const;
  /// graph_validate() of the whole graph.
  Status validate() const;
  /// create() for node `index` with `isa` (default: selected_isa()).
  Expected<std::unique_ptr<OpKernel>> create(size_t index = kLast) const;
  Expected<std::unique_ptr<OpKernel>> create(Isa isa, size_t index = kLast) const;

  /// Data of a non-weight tensor for the next run (sized for the S of that run).
  void set(TensorId id, const std::vector<float>& values);
  void set_i32(TensorId id, const std::vector<int32_t>& values);
  /// Makes tensor `output` share `input`'s buffer in runs (in-place aliasing).
  void alias(TensorId output, TensorId input) { aliases_[output] = input; }
  /// Runs node `index` with sequence length S: inputs must have been set;
  /// outputs are filled with NaN first so that unwritten elements show.
  Status run(const OpKernel& kernel, size_t sequence_length = 1, size_t position = 0,
             size_t index = kLast, ThreadPool* pool = nullptr);
  /// A tensor's data after a run (an aliased output: its input's buffer).
  std::vector<float> get(TensorId id) const;

  static constexpr size_t kLast = static_cast<size_t>(-1);

 private:
  size_t resolve(size_t index) const { return index == kLast ? graph.nodes.size() - 1 : index; }
  TensorView view_of(TensorId id, size_t sequence_length);

  std::map<TensorId, std::vector<uint32_t>> buffers_;  // 4-byte elements, aligned
  std::map<TensorId, TensorId> aliases_;
};

}  // namespace normrt::testing
