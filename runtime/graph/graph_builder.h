#pragma once
// A small helper for writing graphs in code: the builders in models/ and the
// tests use it. It only appends; graph_validate() checks the result.
//
//   GraphBuilder b;
//   TensorId x = b.input("x", DataType::kF32, {kSequenceDim, 64});
//   TensorId w = b.weight("fc.weight", {128, 64}, weights);          // copies
//   TensorId y = b.node(OpType::kLinear, "fc", {x, w, kNoTensor}, {{kSequenceDim, 128}});
//   b.output(y);
//   Graph graph = b.finish(/*max_sequence_length=*/32);
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/graph/graph.h"

namespace normrt {

class GraphBuilder {
 public:
  TensorId input(const std::string& name, DataType dtype, Shape shape);
  /// A float32 weight; the builder keeps its own copy of `values`.
  TensorId weight(const std::string& name, Shape shape, const std::vector<float>& values);
  /// A bfloat16 weight made by rounding `values` (ties to even).
  TensorId weight_bf16(const std::string& name, Shape shape, const std::vector<float>& values);
  TensorId state(const std::string& name, DataType dtype, Shape shape);

  /// Appends a node whose outputs are new f32 intermediates "<name>:<i>" of
  /// the given shapes; returns the first output's id (the others follow it).
  TensorId node(OpType op, const std::string& name, std::vector<TensorId> inputs,
                std::vector<Shape> output_shapes, std::vector<Attribute> attributes = {});
  /// The ids of the last node's outputs.
  const std::vector<TensorId>& last_outputs() const { return graph_.nodes.back().outputs; }

  void output(TensorId tensor) { graph_.outputs.push_back(tensor); }
  void state_update(TensorId state, TensorId value) {
    graph_.state_updates.push_back({state, value});
  }
  void metadata(const std::string& name, AttributeValue value) {
    graph_.metadata.push_back({name, std::move(value)});
  }
  /// Renames a tensor (to give graph outputs readable names).
  void rename(TensorId tensor, const std::string& name) { graph_.tensors[tensor].name = name; }

  Graph& graph() { return graph_; }
  Graph finish(int64_t max_sequence_length);

 private:
  Graph graph_;
};

}  // namespace normrt
