#include "tools/bench/bench_inputs.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "tools/bench/random_values.h"

namespace normrt::bench {
namespace {

constexpr size_t kMaxInputElements = size_t{1} << 28;

// The ids [low, high) every Embedding reading `input` as its ids accepts;
// low == high == 0 if none reads it.
struct IdRange {
  int64_t low = 0, high = 0;
  bool from_tables = false;
};

Expected<IdRange> id_range(const Graph& graph, TensorId input) {
  IdRange range;
  range.low = 0;
  range.high = std::numeric_limits<int32_t>::max();
  for (const Node& node : graph.nodes) {
    if (node.op != OpType::kEmbedding || node.inputs.size() != 2 || node.inputs[0] != input) {
      continue;
    }
    // With padding_idx the ids count positions: any id gives rows in range.
    if (node.find_attribute("padding_idx") != nullptr) continue;
    const Tensor& table = graph.tensors[node.inputs[1]];
    NORMRT_ASSIGN_OR_RETURN(int64_t offset, node.int_attribute("row_offset", 0));
    if (table.shape.empty()) continue;  // validation rejects it
    // Row = id + offset must be in [0, V).
    range.low = std::max(range.low, -offset);
    range.high = std::min(range.high, table.shape[0] - offset);
    range.from_tables = true;
  }
  if (range.from_tables && range.high <= range.low) {
    return Status::error("input '" + graph.tensors[input].name +
                         "': no token id is in range of every embedding table it indexes");
  }
  return range;
}

}  // namespace

Expected<std::vector<InputBuffer>> make_bench_inputs(const Graph& graph, size_t sequence_length,
                                                     uint64_t seed) {
  RandomValues random(seed);
  std::vector<InputBuffer> buffers;
  for (TensorId id : graph.inputs) {
    const Tensor& tensor = graph.tensors[id];
    size_t elements = 1;
    for (int64_t dim : tensor.shape) {
      const size_t d = dim == kSequenceDim ? sequence_length : static_cast<size_t>(dim);
      if (d != 0 && elements > kMaxInputElements / d)
        elements = kMaxInputElements + 1;
      else
        elements *= d;
    }
    if (elements > kMaxInputElements) {
      return Status::error("input '" + tensor.name + "' " + shape_string(tensor.shape) +
                           " at S = " + std::to_string(sequence_length) + " has more than " +
                           std::to_string(kMaxInputElements) + " elements");
    }
    InputBuffer buffer;
    buffer.name = tensor.name;
    buffer.dtype = tensor.dtype;
    buffer.words.resize(elements);
    if (tensor.dtype == DataType::kI32) {
      NORMRT_ASSIGN_OR_RETURN(IdRange range, id_range(graph, id));
      const int64_t low = range.from_tables ? range.low : 0;
      const int64_t high =
          range.from_tables ? range.high : int64_t(std::max<size_t>(1, sequence_length));
      for (uint32_t& word : buffer.words) {
        const auto value = static_cast<int32_t>(random.integer(low, high));
        std::memcpy(&word, &value, sizeof word);
      }
    } else if (tensor.dtype == DataType::kF32) {
      std::vector<float> values = random.uniform(elements, 0.0, 0.5);
      std::memcpy(buffer.words.data(), values.data(), elements * sizeof(float));
    } else {
      return Status::error("input '" + tensor.name + "' has dtype " + data_type_name(tensor.dtype) +
                           ": normrt-bench feeds f32 and i32 only");
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

std::string describe_inputs(const Graph& graph, const std::vector<InputBuffer>& inputs) {
  std::string text;
  for (const InputBuffer& input : inputs) {
    if (!text.empty()) text += "; ";
    text += input.name + " " + data_type_name(input.dtype) + " [" +
            std::to_string(input.words.size()) + " values]";
    if (input.dtype != DataType::kI32) continue;
    Expected<IdRange> range = id_range(graph, graph.find_tensor(input.name));
    if (range && range->from_tables) {
      text += " ids in [" + std::to_string(range->low) + ", " + std::to_string(range->high) + ")";
    }
  }
  return text;
}

}  // namespace normrt::bench
