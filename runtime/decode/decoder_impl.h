#pragma once
// What a Decoder holds: the checked options, K sessions and every buffer of
// the search, sized once at create() so that a step allocates nothing.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "normrt/decode.hpp"
#include "runtime/decode/beam_candidates.h"

namespace normrt {

/// The hypotheses of a search form a tree: node n is token[n] appended to
/// node parent[n] (kNoNode: to the prefix). A step adds at most K nodes.
struct HypothesisTree {
  static constexpr uint32_t kNoNode = UINT32_MAX;
  std::vector<int32_t> token;
  std::vector<uint32_t> parent;
  size_t size = 0;

  void reserve(size_t nodes) {
    token.resize(nodes);
    parent.resize(nodes);
  }
  uint32_t add(int32_t id, uint32_t parent_node) {
    token[size] = id;
    parent[size] = parent_node;
    return static_cast<uint32_t>(size++);
  }
  /// The tokens from the root to `node`.
  std::vector<int32_t> ids(uint32_t node) const;
};

/// A hypothesis that left the beam (finished) or was live at the end.
struct Ended {
  uint32_t node = 0;
  double log_prob = 0;
  bool finished = false;
};

/// The live hypotheses of one step, best first: hypothesis i ends at tree
/// node[i], has log_prob[i], extends hypothesis parent[i] of the step before
/// and runs in session[i]. Each array holds K entries; `live` are in use.
struct Beam {
  std::vector<Session*> session;
  std::vector<uint32_t> node, parent;
  std::vector<double> log_prob;
  size_t live = 0;

  explicit Beam(size_t k) : session(k), node(k), parent(k), log_prob(k) {}
};

struct NORMRT_LOCAL Decoder::Impl {
  std::shared_ptr<const Model> model;
  DecodeOptions options;
  size_t vocab = 0;
  bool token_input_has_sequence = false;
  std::vector<std::unique_ptr<Session>> sessions;  ///< K

  // The search's buffers (decode()), K entries each unless noted.
  Beam beam, next;
  std::vector<Session*> free_sessions;     ///< the sessions no live hypothesis holds
  std::vector<uint8_t> session_handed_on;  ///< per live hypothesis: a child took its session
  std::vector<const float*> rows;          ///< logits row of live hypothesis i
  std::vector<double> log_norm;            ///< log_sum_exp of rows[i]
  BeamCandidateSelector selector;
  HypothesisTree tree;       ///< max_length·K nodes
  std::vector<Ended> ended;  ///< ≤ K finished + ≤ K live at the end
  DecodeStats stats;

  explicit Impl(size_t k) : beam(k), next(k), selector(k) {}
};

/// The search itself (decoder_search.cc): `prefix` already checked non-empty.
Expected<std::vector<Hypothesis>> run_beam_search(Decoder::Impl& decoder,
                                                  const std::vector<int32_t>& prefix,
                                                  const Decoder::Prepare& prepare);

}  // namespace normrt
