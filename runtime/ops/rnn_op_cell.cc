#include "runtime/ops/rnn_op_cell.h"

#include <algorithm>

#include "runtime/ops/rnn_op_weights.h"

namespace normrt::seq_op {
namespace {

constexpr int64_t kMaxChunkSteps = 64;

}  // namespace

Status check_cell_sequence(const Graph& graph, const NodeChecker& c, size_t x_index,
                           size_t recurrent_index, const char* recurrent, CellSequence& sequence) {
  NORMRT_ASSIGN_OR_RETURN(const Tensor* x, c.input(x_index, "x"));
  NORMRT_RETURN_IF_ERROR(c.check_type(*x, "x", {DataType::kF32}, 2));
  NORMRT_ASSIGN_OR_RETURN(const Tensor* u, c.input(recurrent_index, recurrent));
  NORMRT_RETURN_IF_ERROR(
      c.check_type(*u, recurrent, {DataType::kF32, DataType::kBF16, DataType::kInt8}, 2));
  const int64_t hidden = u->shape[1], rows = x->shape[0], input = x->shape[1];
  // H < 2^31 keeps every gate count (4H, 4H·H) far from overflow.
  if (hidden <= 0 || hidden > INT32_MAX) {
    return c.error(NodeChecker::describe(*u, recurrent) + " has " + shape_string(u->shape) +
                   ": H (its columns) must be in [1, 2^31)");
  }
  if (rows == 0 || input <= 0) {
    return c.error(NodeChecker::describe(*x, "x") + " must be [S, D] with S, D ≥ 1, found " +
                   shape_string(x->shape));
  }
  NORMRT_ASSIGN_OR_RETURN(bool reverse, c.flag("reverse", false));
  const int64_t max_rows = rows == kSequenceDim ? graph.max_sequence_length : rows;
  sequence.hidden = static_cast<size_t>(hidden);
  sequence.input = input;
  sequence.chunk_steps = static_cast<size_t>(std::clamp<int64_t>(max_rows, 1, kMaxChunkSteps));
  sequence.reverse = reverse;
  sequence.h_seq_shape = {rows, hidden};
  return Status::ok();
}

void infer_cell_outputs(const Node& node, const CellSequence& sequence,
                        std::vector<InferredTensor>& outputs) {
  const Shape state = {1, static_cast<int64_t>(sequence.hidden)};
  outputs.assign(node.outputs.size(), InferredTensor{DataType::kF32, state});
  outputs[0].shape = sequence.h_seq_shape;
}

Expected<std::vector<std::vector<float>>> read_cell_weights(const NodeChecker& c, size_t first,
                                                            const std::vector<const char*>& names) {
  std::vector<std::vector<float>> values(names.size());
  for (size_t index = first; index < names.size(); ++index) {
    NORMRT_ASSIGN_OR_RETURN(std::vector<float> read, weight_floats(c, index, names[index]));
    values[index] = std::move(read);
  }
  return values;
}

}  // namespace normrt::seq_op
