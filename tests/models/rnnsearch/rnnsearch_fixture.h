#pragma once
// The fixtures of make_fixtures.py (fixtures/<case>.npz, .json,
// .expected.npz) and running converted RNNSearch models on them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "runtime/graph/graph.h"

namespace normrt::test {

/// One case of make_fixtures.py's CASES and the converter flags it needs.
struct RnnSearchCase {
  std::string name;  ///< "rnnsearch_layer_norm"
  std::string norm;  ///< --norm: "" (the checkpoint's layer_norm, or none), "rms_norm", ...
  double p = 0.0;    ///< --p for prms_norm
};
const std::vector<RnnSearchCase>& rnnsearch_cases();

std::string rnnsearch_fixture_path(const std::string& name, const std::string& suffix);
/// <build dir>/rnnsearch-scratch/<file>.
std::string rnnsearch_scratch_path(const std::string& file);

/// A float64 array of the expected file, flattened, with its shape.
struct Expected64 {
  std::vector<double> values;
  std::vector<int64_t> shape;
};

/// PyTorch's float64 results for one source sentence (make_fixtures.py's docstring).
struct SentenceExpectation {
  std::vector<int32_t> src_ids, tgt_ids, greedy_ids;
  Expected64 annotations, attention_keys, init_state, logits, alignment;
  /// Beam search of width K (3, 5): hypotheses by raw cost, ascending.
  struct Beam {
    std::vector<std::vector<int32_t>> ids;
    std::vector<double> costs;  ///< -log p
  };
  Beam beam3, beam5;
};

/// Every sentence of a case (REQUIRE-fails on a missing or malformed file).
std::vector<SentenceExpectation> load_expectations(const std::string& name);

/// Converts a case (f32 or bf16) to rnnsearch_scratch_path(name + tag) and
/// loads both files; REQUIREs success.
struct RnnSearchModels {
  std::shared_ptr<const Model> encoder, decoder;
};
RnnSearchModels convert_and_load(const RnnSearchCase& c, DataType dtype, bool fuse,
                                 const std::string& tag);

/// The encoder's outputs for one source.
struct Encoded {
  std::vector<float> annotations, attention_keys, init_state;
  size_t length = 0;  ///< S
};
Encoded encode(std::shared_ptr<const Model> encoder, const std::vector<int32_t>& src_ids);

/// A decoder session bound to one encoded source (borrowed: `source` must
/// outlive the session's runs), its state seeded with init_state.
std::unique_ptr<Session> start_decoder(std::shared_ptr<const Model> decoder, const Encoded& source);

/// One step: feeds prev_id, runs, returns logits [V] and (if asked) alignment [S].
std::vector<float> decoder_step(Session& session, int32_t prev_id,
                                std::vector<float>* alignment = nullptr);

/// max|a − e| / max|e| (0 for an all-zero e): the normwise relative error.
double normwise_error(const float* actual, const double* expected, size_t n);

}  // namespace normrt::test
