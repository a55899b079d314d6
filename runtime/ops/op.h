#pragma once
// The interface between the graph and the kernels: one OpSchema per OpType
// (arity, shape inference, kernel creation) and the OpKernel it creates.
//
// Phases (XNNPACK's create → reshape → run, at our scale):
//   load:  infer_shapes() checks each node's operands and derives its outputs'
//          dtype and shape, symbolic S included (graph_validate() calls it).
//   plan:  create() builds one immutable OpKernel per node: weights packed
//          (or borrowed from the mapped file), kernels for the ISA resolved,
//          attributes parsed. The kernel is shared by every Session.
//   run:   OpKernel::run() on views whose S is this run's; per-session scratch
//          comes from the session arena (workspace_bytes at S = max). No
//          allocation, no CPU probing, no attribute parsing.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "kernels/common/isa.h"
#include "kernels/common/thread_pool.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// A tensor at run time: its data and its shape with S resolved.
struct TensorView {
  static constexpr size_t kMaxRank = 4;
  std::byte* data = nullptr;  ///< null for an absent optional operand
  DataType dtype = DataType::kF32;
  uint32_t rank = 0;
  size_t dims[kMaxRank] = {};

  bool present() const { return data != nullptr; }
  size_t elements() const;
  /// The last dimension (1 for rank 0), and the product of the others.
  size_t cols() const { return rank == 0 ? 1 : dims[rank - 1]; }
  size_t rows() const { return cols() == 0 ? 0 : elements() / cols(); }
  float* f32() const { return reinterpret_cast<float*>(data); }
  int32_t* i32() const { return reinterpret_cast<int32_t*>(data); }
};

/// Per-session objects an op keeps beyond raw scratch bytes (an RNN cell's
/// workspace, say). Created with the session, never during a run.
class OpSessionState {
 public:
  virtual ~OpSessionState() = default;
};

/// What a kernel sees when it runs.
struct OpRunContext {
  const TensorView* inputs = nullptr;  ///< node.inputs order; absent ones have data == null
  size_t input_count = 0;
  const TensorView* outputs = nullptr;  ///< node.outputs order
  size_t output_count = 0;
  std::byte* workspace = nullptr;  ///< workspace_bytes(), 64-byte aligned, per session
  size_t sequence_length = 1;      ///< S of this run (the padded length when batched)
  /// Sequences in this run (runtime/exec/batch_support.h). A view whose shape
  /// has S holds the real tokens of every sequence, packed: sequence b at
  /// rows [sequence_offsets[b], sequence_offsets[b + 1]) (padding removed);
  /// a one-row-per-sequence tensor ([1, D] in the graph) holds batch rows.
  /// Only the ops batch_support.h lists see batch > 1 or sequence_offsets.
  size_t batch = 1;
  /// (batch + 1) row offsets, from 0 to the rows of the S views; null: one
  /// sequence of all rows.
  const uint32_t* sequence_offsets = nullptr;
  size_t position = 0;         ///< tokens processed by earlier runs of this session (KV cache fill)
  ThreadPool* pool = nullptr;  ///< intra-op threads, or null
  OpSessionState* session_state = nullptr;  ///< create_session_state()'s object, or null
};

/// What create() gets: the node in its (validated) graph, and the choices of the plan.
struct OpBuildContext {
  const Graph& graph;
  const Node& node;
  Isa isa;
};

/// One node, prepared. Immutable after creation; run() may be called
/// concurrently from several sessions (each with its own views and workspace).
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  /// Per-session scratch bytes needed at S = max_sequence_length.
  virtual size_t workspace_bytes() const { return 0; }
  /// Bytes of weights this kernel holds in its own memory (packed copies);
  /// weights used in place from the model file are not counted.
  virtual size_t weight_copy_bytes() const { return 0; }
  /// Per-session state made once per Session (null: none).
  virtual std::unique_ptr<OpSessionState> create_session_state() const { return nullptr; }
  /// The same for a session with `threads` intra-op threads (≥ 1), for
  /// kernels whose preparation depends on it (oneDNN sizes its work split
  /// when a primitive is created). By default create_session_state().
  virtual std::unique_ptr<OpSessionState> create_session_state_with_threads(size_t threads) const {
    (void)threads;
    return create_session_state();
  }
  /// Runs the node. Fails only on data the shapes cannot rule out (a token id
  /// out of range, a KV cache that would overflow), with a message naming the
  /// node, the value and where it was found.
  virtual Status run(const OpRunContext& context) const = 0;
};

/// Output dtypes and shapes derived by shape inference; one per node output.
struct InferredTensor {
  DataType dtype = DataType::kF32;
  Shape shape;
};

struct OpSchema {
  OpType type;
  const char* name;
  size_t min_inputs, max_inputs;    ///< node.inputs.size() range (absent optionals count)
  size_t min_outputs, max_outputs;  ///< node.outputs.size() range
  /// Checks operand dtypes/shapes/attributes and derives the outputs. Errors
  /// name the node, the operand, the expected and the found value.
  Status (*infer_shapes)(const Graph& graph, const Node& node,
                         std::vector<InferredTensor>& outputs);
  Expected<std::unique_ptr<OpKernel>> (*create)(const OpBuildContext& context);
};

/// The schema of `type`, or null for an unknown op type.
const OpSchema* find_op_schema(OpType type);

}  // namespace normrt
