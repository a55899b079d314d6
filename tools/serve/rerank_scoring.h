#pragma once
// The runs of POST /v1/rerank: each (query, document) pair's relevance score,
// sigmoid(logit) of the one-label classifier, as sentence-transformers'
// CrossEncoder scores it. Pairs run in padded batches of up to --run-batch
// (padded_batch.h: longest first, token_type_ids padded like input_ids), or
// one at a time when the sessions take one sequence (--run-batch 1, or a
// model that does not batch) or the request has one document.
#include <optional>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/serve/model_generation.h"
#include "tools/serve/reply.h"
#include "tools/serve/request_control.h"
#include "tools/serve/text_encoding.h"

namespace normrt::serve {

/// Scores `pairs` on `session` (a session of `generation`) into `scores`, in
/// the request's order. Stops between runs once the deadline passed (504) or
/// the client left (499), and on a failed run (400 naming documents[i], "and
/// its batch" for a batch) or a non-finite logit (422 naming its document):
/// returns the reply that stopped it, or nothing when every pair was scored.
std::optional<Reply> score_pairs(const ModelGeneration& generation, Session& session,
                                 const std::vector<EncodedPair>& pairs,
                                 const RequestControl& control, std::vector<double>& scores);

}  // namespace normrt::serve
