#pragma once
// Sequences of different lengths run as one batch of a session
// (docs/runtime.md, Batches): the embeddings of /v1/embeddings and the
// (query, document) pairs of /v1/rerank both go through here. Sorting longest
// first (as sentence-transformers orders them) keeps the padding of each batch
// small; the runtime drops the padding before any work anyway, so a batch's
// rows are the rows of separate runs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt::serve {

/// Indices 0..lengths.size() − 1 ordered by length, longest first (ties in
/// index order).
std::vector<size_t> longest_first(const std::vector<size_t>& lengths);

/// One i32 input of a padded batch: its name and one row per sequence, the
/// rows of every input of a batch of the same lengths, longest first.
struct PaddedInput {
  std::string name;
  std::vector<const std::vector<int32_t>*> rows;
  std::vector<int32_t> buffer;  // [count, longest], reused across runs
};

/// Runs `inputs` as one batch [count, longest]: each padded on the right with
/// 0 ([PAD] for ids, segment 0 for token types) and masked out by an
/// attention mask built from inputs[0]'s lengths. `mask`: scratch.
Status run_padded(Session& session, std::vector<PaddedInput>& inputs, std::vector<int32_t>& mask);

}  // namespace normrt::serve
