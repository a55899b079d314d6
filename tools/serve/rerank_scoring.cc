#include "tools/serve/rerank_scoring.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/status.h"
#include "tools/serve/model_service.h"
#include "tools/serve/padded_batch.h"

namespace normrt::serve {
namespace {

std::string document_name(size_t index) { return "documents[" + std::to_string(index) + "]"; }

// One pair alone, unpadded and without a mask: what a session of one
// sequence takes.
Status run_alone(const ModelGeneration& generation, Session& session, const EncodedPair& pair) {
  NORMRT_RETURN_IF_ERROR(
      session.set_input(generation.id_input(), pair.ids.data(), pair.ids.size() * sizeof(int32_t)));
  if (generation.rerank_types()) {
    NORMRT_RETURN_IF_ERROR(session.set_input("token_type_ids", pair.type_ids.data(),
                                             pair.type_ids.size() * sizeof(int32_t)));
  }
  return session.run();
}

}  // namespace

std::optional<Reply> score_pairs(const ModelGeneration& generation, Session& session,
                                 const std::vector<EncodedPair>& pairs,
                                 const RequestControl& control, std::vector<double>& scores) {
  scores.assign(pairs.size(), 0.0);
  const size_t run_batch = pairs.size() > 1 ? generation.run_batch() : 1;
  std::vector<size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<PaddedInput> inputs;
  if (run_batch > 1) {
    std::vector<size_t> lengths;
    for (const EncodedPair& pair : pairs) lengths.push_back(pair.ids.size());
    order = longest_first(lengths);
    inputs.resize(generation.rerank_types() ? 2 : 1);
    inputs[0].name = generation.id_input();
    if (inputs.size() > 1) inputs[1].name = "token_type_ids";
  }
  std::vector<int32_t> mask;
  for (size_t first = 0; first < order.size(); first += run_batch) {
    // Stop between runs: the work is for no one, or too late.
    if (control.abandoned()) return client_gone_reply(static_cast<long>(first));
    if (control.expired()) {
      return error_reply(deadline_error(control, std::to_string(first) + " of " +
                                                     std::to_string(pairs.size()) +
                                                     " documents were scored"));
    }
    const size_t count = std::min(run_batch, order.size() - first);
    Status s = Status::ok();
    if (run_batch == 1) {
      s = run_alone(generation, session, pairs[order[first]]);
    } else {
      for (PaddedInput& input : inputs) input.rows.clear();
      for (size_t r = 0; r < count; ++r) {
        inputs[0].rows.push_back(&pairs[order[first + r]].ids);
        if (inputs.size() > 1) inputs[1].rows.push_back(&pairs[order[first + r]].type_ids);
      }
      s = run_padded(session, inputs, mask);
    }
    Expected<TensorRef> logits = s ? session.output("logits") : Expected<TensorRef>(s);
    if (!logits) {
      return error_reply({400, "invalid_input",
                          document_name(order[first]) + (count > 1 ? " and its batch: " : ": ") +
                              logits.status().message(),
                          "documents"});
    }
    if (logits->elements() != count) {
      return error_reply({500, "internal",
                          "the model gave " + std::to_string(logits->elements()) +
                              " logits for a run of " + std::to_string(count) + " documents"});
    }
    for (size_t r = 0; r < count; ++r) {
      const float logit = logits->f32()[r];
      const size_t i = order[first + r];
      if (!std::isfinite(logit)) {
        return error_reply({422, "non_finite_output",
                            document_name(i) + ": the model's logit is " + std::to_string(logit),
                            "documents"});
      }
      scores[i] = 1.0 / (1.0 + std::exp(-static_cast<double>(logit)));
    }
  }
  return std::nullopt;
}

}  // namespace normrt::serve
