#pragma once
// Runs one op outside any executor: a Graph of one node built in the test,
// its schema's infer_shapes() and create(), a session state and a 64-byte
// aligned workspace, and run() on TensorViews over the test's own buffers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/graph/graph.h"
#include "runtime/ops/op.h"

namespace normrt::testing {

/// Rounds to the nearest bfloat16, ties to even (the test's own rounding).
uint16_t round_to_bf16(float value);
/// The float a bfloat16 denotes.
float bf16_to_float(uint16_t bits);

class OneNodeHarness {
 public:
  OneNodeHarness(OpType op, std::string node_name, int64_t max_sequence_length = 16);

  /// Operands, in the node's input order.
  TensorId input(const std::string& name, Shape shape, TensorKind kind = TensorKind::kInput,
                 DataType dtype = DataType::kF32);
  /// A weight holding `values` (f32), or their bf16 roundings (bf16).
  TensorId weight(const std::string& name, Shape shape, const std::vector<float>& values,
                  DataType dtype = DataType::kF32);
  void absent_input();
  void output(const std::string& name, Shape shape);
  void absent_output();
  void attribute(const std::string& name, AttributeValue value);

  Graph& graph() { return graph_; }
  Node& node() { return graph_.nodes[0]; }

  /// infer_shapes(); also fails if an inferred output differs from the declared one.
  Status infer();
  /// infer(), then create() and the per-session state and workspace.
  Status create(Isa isa);

  /// run() with S = sequence_length. `inputs` / `outputs`: one buffer per
  /// node operand in order (null for weights and absent operands); each
  /// non-null buffer must hold the operand's elements at that S.
  Status run(const std::vector<std::vector<float>*>& inputs,
             const std::vector<std::vector<float>*>& outputs, size_t sequence_length,
             size_t position = 0, ThreadPool* pool = nullptr);

  const OpKernel& kernel() const { return *kernel_; }

 private:
  TensorView view_of(TensorId id, std::vector<float>* buffer, size_t sequence_length) const;

  Graph graph_;
  std::unique_ptr<OpKernel> kernel_;
  std::unique_ptr<OpSessionState> session_;
  std::vector<std::byte> workspace_storage_;
  std::byte* workspace_ = nullptr;
};

}  // namespace normrt::testing
