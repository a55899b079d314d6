#pragma once
// normrt's graph IR: tensors with static shapes (one symbolic dimension, the
// sequence length S, allowed) and nodes in topological order.
//
// A Graph is plain data. It comes from a model file (runtime/format/) or from
// a builder in models/, is checked by graph_validate() (references, shapes,
// cycles), rewritten by passes (runtime/passes/) and compiled into an
// executable plan (runtime/exec/). It never names an architecture.
//
// Tensor kinds:
//   kInput         fed by the caller on every run (token ids, x_t, ...)
//   kWeight        constant data: borrowed from the mmap'd file or owned
//   kIntermediate  produced by exactly one node; lives in the session arena
//   kState         persistent per-session memory that survives runs (RNN h/c,
//                  a KV cache, the decoding position); zero at session start.
//                  Nodes may read it and write it in place (Node::state_writes).
// Graph outputs are any non-weight tensors listed in Graph::outputs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"

namespace normrt {

enum class DataType : uint8_t {
  kF32 = 0,
  kBF16 = 1,  ///< weights only
  kI32 = 2,   ///< token ids, positions
  kInt8 = 3,  ///< matrix weights only: symmetric per-output-channel int8 (int8_weight.h)
};
const char* data_type_name(DataType type);  ///< "f32", "bf16", "i32", "int8"; "invalid" otherwise
/// Bytes per element (int8: 1, not counting its per-row scales); 0 if invalid.
size_t data_type_size(DataType type);

/// A dimension of a shape: a fixed size ≥ 0, or kSequenceDim, the symbolic
/// sequence length S (1 ≤ S ≤ Graph::max_sequence_length, chosen per run from
/// the inputs' shapes).
constexpr int64_t kSequenceDim = -1;
using Shape = std::vector<int64_t>;
/// "[S, 768]".
std::string shape_string(const Shape& shape);
/// True if `shape` has the symbolic dimension S.
bool has_sequence_dim(const Shape& shape);
/// Elements of `shape` with S = `sequence_length`.
size_t shape_elements(const Shape& shape, size_t sequence_length);

enum class TensorKind : uint8_t { kInput = 0, kWeight = 1, kIntermediate = 2, kState = 3 };
const char* tensor_kind_name(TensorKind kind);

using TensorId = uint32_t;
constexpr TensorId kNoTensor = UINT32_MAX;  ///< an absent optional operand

/// Weight bytes: a view into memory kept alive by `owner` (the mapped file or
/// an owned buffer). Row-major, little-endian, of the tensor's dtype and shape
/// (int8: the values, then one f32 scale per row; int8_weight.h).
struct TensorData {
  const std::byte* bytes = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
};

/// How a weight's bytes are arranged. The panel layouts hold a Linear weight
/// W [N, K] already packed for the linear kernels (kernels/linear/linear.h)
/// in panels of 16, 32 or 64 columns, so that it is used straight from the
/// mapped file; only the W operand of Linear / FusedLinear may have them.
enum class TensorLayout : uint8_t {
  kRowMajor = 0,
  kPanels16 = 1,
  kPanels32 = 2,
  kPanels64 = 3,
};
const char* tensor_layout_name(TensorLayout layout);  ///< "row_major", "panels16", ...
/// Columns per panel of a panel layout; 0 for kRowMajor or an invalid value.
size_t tensor_layout_panel_width(TensorLayout layout);

struct Tensor {
  std::string name;
  DataType dtype = DataType::kF32;
  Shape shape;
  TensorKind kind = TensorKind::kIntermediate;
  TensorData data;                                ///< kWeight only
  TensorLayout layout = TensorLayout::kRowMajor;  ///< kWeight only
};

/// The bytes a weight's data must have for its dtype, shape and layout; an
/// error (naming the tensor) for a layout its dtype or shape cannot have.
Expected<size_t> weight_data_bytes(const Tensor& tensor);

enum class OpType : uint16_t {
  kLinear = 0,      ///< (x[.., K], W[N, K], bias[N]?) → y[.., N]
  kLayerNorm = 1,   ///< (x, gain?, bias?, residual?) → (y, sum?) over the last axis
  kRmsNorm = 2,     ///< same operands as kLayerNorm
  kPRmsNorm = 3,    ///< same operands; attribute "p"
  kAdd = 4,         ///< (a, b) → a + b, b broadcast over leading axes
  kMul = 5,         ///< (a, b) → a ⊙ b, same broadcasting
  kActivation = 6,  ///< (x) → act(x); attribute "activation"
  kEmbedding = 7,   ///< (ids i32[S], table[V, D]) → [S, D]
  kSoftmax = 8,     ///< (x) → softmax over the last axis
  kAttention = 9,   ///< multi-head scaled dot-product attention, optional KV cache
  kConcat = 10,     ///< (a, b, ...) → concatenation along "axis"
  kSplit = 11,      ///< (x) → equal parts along "axis"
  kSlice = 12,      ///< (x) → x[begin:end] along "axis"
  kLstmCell = 13,   ///< one LSTM step, LayerNorm paper eqs. 20-22 (or DRAW, or none)
  kGruCellBa = 14,  ///< one GRU step, Ba et al.'s LayerNorm paper eqs. 26-28: h = (1 − z)⊙h + z⊙h̃
  kFusedLinear = 15,        ///< made by the fusion pass: Linear → (Add) → norm → (activation)
  kRope = 16,               ///< rotary position embedding of (x[S, H·d]) at the session position
  kMeanPool = 17,           ///< (x[S, D]) → [1, D] mean (or, mode "max", maximum) over rows
  kL2Normalize = 18,        ///< (x) → x / max(‖x‖₂, eps) over the last axis
  kAdditiveAttention = 19,  ///< (query, keys, v, c?, values) → (context, alignment?): Bahdanau
  kGruRecurrenceCho = 20,  ///< a GRU's recurrent half, Cho et al./Nematus: h = u⊙h + (1 − u)⊙h̃
  kConv2d = 21,  ///< (x[N, C, H, W], W[O, C, kh, kw], bias?, gain?, norm_bias?) → [N, O, OH, OW]
  kMaxPool2d = 22,       ///< (x[N, C, H, W]) → [N, C, OH, OW]
  kAvgPool2d = 23,       ///< same; attribute "count_include_pad"
  kGlobalAvgPool = 24,   ///< (x[N, C, H, W]) → [N, C], the mean over H, W
  kAbs = 25,             ///< (x) → |x|
  kMatMul = 26,          ///< (a[M, K], b[N, K]) → a·bᵀ [M, N], both activations
  kOrderViolation = 27,  ///< (x[A, D], y[B, D]) → [A, B]: Σ max(0, x − y)²
  kMixtureDensity = 28,  ///< (y_hat[R, 1+6M], bias?) → Graves' mixture parameters
  kMixtureSample = 29,   ///< (params[1, 1+6M], step i32[1]) → (point[1, 3], step + 1)
  kCount,
};
const char* op_type_name(OpType type);  ///< "Linear", ...; "invalid" otherwise

/// Opaque bytes: a metadata value the runtime stores and hands out without
/// reading it (a tokenizer serialized by tools/text). Graph metadata only.
struct Blob {
  std::string bytes;
  bool operator==(const Blob& other) const { return bytes == other.bytes; }
};

/// A typed attribute value.
using AttributeValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, Blob>;
struct Attribute {
  std::string name;
  AttributeValue value;
};

struct Node {
  std::string name;
  OpType op = OpType::kLinear;
  std::vector<TensorId> inputs;   ///< kNoTensor for an absent optional operand
  std::vector<TensorId> outputs;  ///< kNoTensor for an absent optional output
  std::vector<Attribute> attributes;

  /// The attribute called `name`, or null.
  const AttributeValue* find_attribute(const std::string& name) const;
  /// Typed lookups: the value, `fallback` if absent, an error naming the node,
  /// the attribute, the expected and the found type if it has another type.
  Expected<int64_t> int_attribute(const std::string& name, int64_t fallback) const;
  Expected<double> float_attribute(const std::string& name, double fallback) const;
  Expected<std::string> string_attribute(const std::string& name, std::string fallback) const;
  void set_attribute(const std::string& name, AttributeValue value);
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;  ///< in execution order (validated: topological)
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  /// After every run, each kState tensor `state` takes the value of `value`
  /// (an RNN's h_t and c_t). A KV cache is instead updated in place by its
  /// Attention node.
  struct StateUpdate {
    TensorId state = kNoTensor;
    TensorId value = kNoTensor;
  };
  std::vector<StateUpdate> state_updates;
  /// Upper bound of S; the memory plan is sized for it.
  int64_t max_sequence_length = 1;
  /// Free-form typed metadata: architecture, norm kind, eps, ... (the
  /// converter records them; the runtime only reports them).
  std::vector<Attribute> metadata;

  /// The tensor called `name`, or kNoTensor.
  TensorId find_tensor(const std::string& name) const;
  /// Appends a tensor and returns its id.
  TensorId add_tensor(Tensor tensor);
};

}  // namespace normrt
