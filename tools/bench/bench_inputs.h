#pragma once
// The inputs normrt-bench feeds: one buffer per graph input, filled once
// (every page written) and shared by every variant so they all see the same
// data.
//   i32 inputs read by Embedding nodes: token ids uniform over the rows every
//     such table accepts (its V and row_offset); other i32 inputs: [0, S).
//   f32 inputs: uniform values of standard deviation 0.5 (random_values.h:
//     never subnormal).
// The symbolic dimension S of an input's shape becomes `sequence_length`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt::bench {

struct InputBuffer {
  std::string name;
  DataType dtype = DataType::kF32;
  std::vector<uint32_t> words;  ///< the elements' bits: f32 or i32, 4 bytes each
  const void* data() const { return words.data(); }
  size_t bytes() const { return words.size() * sizeof(uint32_t); }
};

/// Buffers for every input of `graph` at S = `sequence_length`. Errors name
/// the input: an unsupported dtype, an absurd size, no id every table accepts.
Expected<std::vector<InputBuffer>> make_bench_inputs(const Graph& graph, size_t sequence_length,
                                                     uint64_t seed);

/// "input_ids i32 [32] ids in [0, 30522)" per input, joined by "; ".
std::string describe_inputs(const Graph& graph, const std::vector<InputBuffer>& inputs);

}  // namespace normrt::bench
