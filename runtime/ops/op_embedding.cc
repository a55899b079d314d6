// Embedding: row lookups in a table [V, D] (an f32 or bf16 weight), output f32.
//   (ids i32 [..], table)  → [.., D]   row ids[i] + row_offset
//   (table), positions = 1 → [S, D]    rows position + row_offset + [0, S), where
//                                      position is the session's token count
//                                      (learned position embeddings); in a
//                                      batch, from 0 for each sequence
//   (ids i32 [.., S], table), padding_idx = P → [.., S, D]
//                                      position rows counted from the ids, as
//                                      RoBERTa's create_position_ids_from_input_ids:
//                                      row P + (number of non-P ids in ids[.., 0..s])
//                                      for an id other than P, row P for P itself
//                                      (+ row_offset); the session position is
//                                      not used (one whole sequence per run, or
//                                      each sequence of a batch from its start)
// Attributes: "positions" (int 0 | 1, default 0), "row_offset" (int, default 0;
// some checkpoints shift their rows, e.g. RoBERTa's positions by 2),
// "padding_idx" (int >= 0, absent by default; only with positions = 0).
// A row outside [0, V) is a run() error naming the node, the index, the value and V.
// Aliasing: none (the output must not overlap ids or the table).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "base/bf16.h"
#include "runtime/ops/op_schemas.h"
#include "runtime/ops/op_support.h"

namespace normrt {
namespace {

struct EmbeddingConfig {
  bool positions = false;
  int64_t row_offset = 0;
  int64_t padding_idx = -1;  // >= 0: position rows counted from the ids
};

Expected<EmbeddingConfig> check_embedding_node(const Graph& graph, const Node& node,
                                               std::vector<InferredTensor>& outputs) {
  NORMRT_RETURN_IF_ERROR(check_attribute_names(node, {"positions", "row_offset", "padding_idx"}));
  EmbeddingConfig config;
  NORMRT_ASSIGN_OR_RETURN(int64_t positions, node.int_attribute("positions", 0));
  if (positions != 0 && positions != 1) {
    return node_error(node,
                      "attribute 'positions' must be 0 or 1, found " + std::to_string(positions));
  }
  config.positions = positions == 1;
  NORMRT_ASSIGN_OR_RETURN(int64_t offset, node.int_attribute("row_offset", 0));
  // Bounded so that id + row_offset cannot overflow.
  if (offset < -(int64_t{1} << 40) || offset > (int64_t{1} << 40)) {
    return node_error(
        node, "attribute 'row_offset' must be within ±2^40, found " + std::to_string(offset));
  }
  config.row_offset = offset;
  NORMRT_ASSIGN_OR_RETURN(config.padding_idx, node.int_attribute("padding_idx", -1));
  if (node.find_attribute("padding_idx") != nullptr) {
    if (config.positions)
      return node_error(node,
                        "attribute 'padding_idx' counts positions from the ids: it "
                        "needs positions = 0");
    if (config.padding_idx < 0 || config.padding_idx > (int64_t{1} << 40))
      return node_error(node, "attribute 'padding_idx' must be within [0, 2^40], found " +
                                  std::to_string(config.padding_idx));
  }

  const size_t expected_inputs = config.positions ? 1 : 2;
  if (node.inputs.size() != expected_inputs) {
    return node_error(node,
                      std::string(config.positions ? "with positions = 1 the operands are (table)"
                                                   : "the operands are (ids, table)") +
                          ": expected " + std::to_string(expected_inputs) + ", found " +
                          std::to_string(node.inputs.size()));
  }
  const size_t table_index = expected_inputs - 1;
  NORMRT_ASSIGN_OR_RETURN(const Tensor* table, required_input(graph, node, table_index, "table"));
  Status s = check_kind(node, table_index, "table", *table, TensorKind::kWeight);
  if (s) s = check_dtype(node, table_index, "table", *table, {DataType::kF32, DataType::kBF16});
  if (!s) return s;
  const Shape& table_shape = table->shape;
  if (table_shape.size() != 2 || table_shape[0] < 1 || table_shape[1] < 1) {
    return node_error(node, "operand " + std::to_string(table_index) + " (table) '" + table->name +
                                "' must have shape [V, D] with V, D >= 1, found " +
                                shape_string(table_shape));
  }
  Shape y;
  if (config.positions) {
    y = {kSequenceDim, table_shape[1]};
  } else {
    NORMRT_ASSIGN_OR_RETURN(const Tensor* ids, required_input(graph, node, 0, "ids"));
    NORMRT_RETURN_IF_ERROR(check_dtype(node, 0, "ids", *ids, {DataType::kI32}));
    if (ids->shape.empty() || ids->shape.size() >= TensorView::kMaxRank) {
      return node_error(node, "operand 0 (ids) '" + ids->name + "' must have rank 1 to " +
                                  std::to_string(TensorView::kMaxRank - 1) + ", found " +
                                  shape_string(ids->shape));
    }
    y = ids->shape;
    y.push_back(table_shape[1]);
  }
  outputs = {{DataType::kF32, y}};
  return config;
}

Status infer_embedding(const Graph& graph, const Node& node, std::vector<InferredTensor>& outputs) {
  return check_embedding_node(graph, node, outputs).status();
}

class EmbeddingOp final : public OpKernel {
 public:
  EmbeddingOp(EmbeddingConfig config, const Tensor& table, std::string label)
      : config_(config),
        rows_(static_cast<size_t>(table.shape[0])),
        width_(static_cast<size_t>(table.shape[1])),
        bf16_(table.dtype == DataType::kBF16),
        table_name_(table.name),
        label_(std::move(label)) {}

  Status run(const OpRunContext& context) const override {
    const TensorView& table = context.inputs[context.input_count - 1];
    float* y = context.outputs[0].f32();
    if (config_.positions && context.sequence_offsets != nullptr) {
      // A packed batch: each sequence's rows from position 0 (a copy of the
      // first rows of the longest sequence's).
      const uint32_t* offsets = context.sequence_offsets;
      size_t longest = 0, at = 0;
      for (size_t b = 0; b < context.batch; ++b) {
        const size_t rows = offsets[b + 1] - offsets[b];
        if (rows > longest) longest = rows, at = offsets[b];
      }
      NORMRT_RETURN_IF_ERROR(positions(context, y + at * width_, longest));
      for (size_t b = 0; b < context.batch; ++b) {
        if (offsets[b] == at) continue;
        std::memcpy(y + offsets[b] * width_, y + at * width_,
                    (offsets[b + 1] - offsets[b]) * width_ * sizeof(float));
      }
      return Status::ok();
    }
    if (config_.positions) return positions(context, y, context.outputs[0].rows());
    const TensorView& ids = context.inputs[0];
    const size_t count = ids.elements();
    if (config_.padding_idx >= 0) return counted_positions(context, ids, table, y);
    for (size_t i = 0; i < count; ++i) {
      const int64_t row = int64_t{ids.i32()[i]} + config_.row_offset;
      if (row < 0 || row >= static_cast<int64_t>(rows_)) {
        return out_of_range("ids[" + std::to_string(i) + "] = " + std::to_string(ids.i32()[i]),
                            row);
      }
      copy_row(table, static_cast<size_t>(row), y + i * width_);
    }
    return Status::ok();
  }

  // Rows position + row_offset + [0, count) of the table into y.
  Status positions(const OpRunContext& context, float* y, size_t count) const {
    const TensorView& table = context.inputs[context.input_count - 1];
    for (size_t i = 0; i < count; ++i) {
      const int64_t row = static_cast<int64_t>(context.position + i) + config_.row_offset;
      if (row < 0 || row >= static_cast<int64_t>(rows_)) {
        return out_of_range("position " + std::to_string(context.position + i) +
                                " (session position " + std::to_string(context.position) +
                                " + row " + std::to_string(i) + ")",
                            row);
      }
      copy_row(table, static_cast<size_t>(row), y + i * width_);
    }
    return Status::ok();
  }

 private:
  // RoBERTa's positions: along the last axis, padding ids take row P and the
  // others P + their rank among the non-padding ids (1, 2, ...).
  // In a packed batch the count restarts at each sequence's first row.
  Status counted_positions(const OpRunContext& context, const TensorView& ids,
                           const TensorView& table, float* y) const {
    const size_t count = ids.elements();
    const size_t length = ids.cols();
    const uint32_t* starts = context.sequence_offsets;
    size_t next_sequence = 0;
    // A padding_idx beyond int32 matches no id.
    const int32_t padding = static_cast<int32_t>(std::min<int64_t>(config_.padding_idx, INT32_MAX));
    int64_t seen = 0;
    for (size_t i = 0; i < count; ++i) {
      if (starts != nullptr) {
        while (next_sequence < context.batch && starts[next_sequence] == i) {
          seen = 0;
          ++next_sequence;
        }
      } else if (i % length == 0) {
        seen = 0;
      }
      const bool real = config_.padding_idx > INT32_MAX || ids.i32()[i] != padding;
      if (real) ++seen;
      const int64_t position = config_.padding_idx + (real ? seen : 0);
      const int64_t row = position + config_.row_offset;
      if (row < 0 || row >= static_cast<int64_t>(rows_)) {
        return out_of_range("position " + std::to_string(position) + " of ids[" +
                                std::to_string(i) + "] (padding_idx " +
                                std::to_string(config_.padding_idx) + ")",
                            row);
      }
      copy_row(table, static_cast<size_t>(row), y + i * width_);
    }
    return Status::ok();
  }

  void copy_row(const TensorView& table, size_t row, float* dst) const {
    if (!bf16_) {
      std::memcpy(dst, table.data + row * width_ * sizeof(float), width_ * sizeof(float));
      return;
    }
    floats_from_bf16(table.data + row * width_ * sizeof(uint16_t), width_, dst);
  }

  Status out_of_range(const std::string& what, int64_t row) const {
    std::string offset;
    if (config_.row_offset != 0) {
      offset = " (+ row_offset " + std::to_string(config_.row_offset) + " = row " +
               std::to_string(row) + ")";
    }
    return Status::error(label_ + ": " + what + offset + " is out of range for table '" +
                         table_name_ + "' of V = " + std::to_string(rows_) + " rows");
  }

  EmbeddingConfig config_;
  size_t rows_, width_;
  bool bf16_;
  std::string table_name_;
  std::string label_;
};

Expected<std::unique_ptr<OpKernel>> create_embedding(const OpBuildContext& context) {
  std::vector<InferredTensor> outputs;
  NORMRT_ASSIGN_OR_RETURN(EmbeddingConfig config,
                          check_embedding_node(context.graph, context.node, outputs));
  const Tensor& table = context.graph.tensors[context.node.inputs.back()];
  return std::unique_ptr<OpKernel>(new EmbeddingOp(config, table, node_label(context.node)));
}

}  // namespace

const OpSchema kEmbeddingSchema = {OpType::kEmbedding, "Embedding",     1, 2, 1, 1,
                                   infer_embedding,    create_embedding};

}  // namespace normrt
