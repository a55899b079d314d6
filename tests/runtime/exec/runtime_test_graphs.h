#pragma once
// The sample graphs the runtime tests share (models/samples, also timed by
// bench_executor), and a double-precision evaluation of them written
// independently of the ops (plain loops over the equations).
#include <cstdint>
#include <vector>

#include "models/samples/mixed_blocks.h"
#include "runtime/graph/graph_builder.h"

namespace normrt::test {

using samples::mixed_blocks;
using samples::mixed_blocks_weights;
using samples::MixedBlocksWeights;
using samples::random_values;
using samples::running_sum;

/// `out` for `x` (S × d), in double, from the weights as the graph stores them
/// (bf16-rounded when `bf16`).
std::vector<double> mixed_blocks_reference(const MixedBlocksWeights& weights, bool bf16,
                                           const std::vector<float>& x, size_t sequence_length);

}  // namespace normrt::test
