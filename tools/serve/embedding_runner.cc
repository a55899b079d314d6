// ModelService::embed_each: the inputs of an embedding request run on one
// leased session, in batches of up to --run-batch sorted by length (longest
// first, as sentence-transformers orders them, so that a batch pads little;
// the runtime drops the padding before any work) or one at a time, stopping
// between runs when the request is too late (504) or its client has gone
// (499, no reply). The embeddings are emitted in the request's order.
#include <algorithm>
#include <numeric>

#include "tools/serve/model_service.h"
#include "tools/serve/tensor_response.h"

namespace normrt::serve {
namespace {

constexpr const char* kEmbeddingOutput = "embedding";

}  // namespace

std::optional<Reply> ModelService::embed_each(const ModelGeneration& generation,
                                              const std::vector<EncodedInput>& encoded,
                                              const RequestControl& control,
                                              const EmitEmbedding& emit, bool v2_errors) const {
  auto fail = [&](const ApiError& error, size_t done) {
    Reply reply = v2_errors ? v2_error_reply(error) : error_reply(error);
    reply.inputs_done = static_cast<long>(done);
    return reply;
  };
  ApiResult<SessionPool::Lease> lease = this->lease(generation, control);
  if (!lease) return fail(lease.error(), 0);
  Session& session = lease->session();
  const bool batches = generation.run_batch() > 1 && encoded.size() > 1 &&
                       std::none_of(encoded.begin(), encoded.end(),
                                    [](const EncodedInput& input) { return input.ids.empty(); });
  if (batches) return embed_batches(generation, session, encoded, control, emit, fail);
  for (size_t i = 0; i < encoded.size(); ++i) {
    // Stop between inputs: the work is for no one, or too late.
    if (control.abandoned()) return client_gone_reply(static_cast<long>(i));
    if (control.expired()) {
      return fail(
          deadline_error(control, std::to_string(i) + " of " + std::to_string(encoded.size()) +
                                      " inputs were embedded"),
          i);
    }
    const std::vector<int32_t>& ids = encoded[i].ids;
    Status s = session.set_input(generation.id_input(), ids.data(), ids.size() * sizeof(int32_t));
    if (s) s = session.run();
    if (!s) {
      return fail(
          {400, "invalid_input", "input[" + std::to_string(i) + "]: " + s.message(), "input"}, i);
    }
    Expected<TensorRef> embedding = session.output(kEmbeddingOutput);
    if (!embedding) return fail({500, "internal", embedding.status().message()}, i);
    const float* values = embedding->f32();
    if (auto bad = first_non_finite(values, embedding->elements())) {
      return fail({422, "non_finite_output",
                   "input[" + std::to_string(i) +
                       "]: the embedding has a non-finite value at index " + std::to_string(*bad)},
                  i);
    }
    if (std::optional<ApiError> error = emit(i, values)) return fail(*error, i);
  }
  return std::nullopt;
}

std::optional<Reply> ModelService::embed_batches(
    const ModelGeneration& generation, Session& session, const std::vector<EncodedInput>& encoded,
    const RequestControl& control, const EmitEmbedding& emit,
    const std::function<Reply(const ApiError&, size_t)>& fail) const {
  std::vector<size_t> order(encoded.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return encoded[a].ids.size() > encoded[b].ids.size();
  });
  std::vector<float> embeddings;  // [inputs, width], in the request's order
  size_t width = 0;
  std::vector<int32_t> ids, mask;
  const size_t run_batch = generation.run_batch();
  for (size_t first = 0; first < order.size(); first += run_batch) {
    if (control.abandoned()) return client_gone_reply(0);
    if (control.expired()) {
      return fail(
          deadline_error(control, std::to_string(first) + " of " + std::to_string(encoded.size()) +
                                      " inputs were embedded"),
          0);
    }
    const size_t count = std::min(run_batch, order.size() - first);
    const size_t length = encoded[order[first]].ids.size();  // the longest of this batch
    ids.assign(count * length, 0);                           // [PAD] = 0 on the right, masked out
    mask.assign(count * length, 0);
    for (size_t r = 0; r < count; ++r) {
      const std::vector<int32_t>& one = encoded[order[first + r]].ids;
      std::copy(one.begin(), one.end(), ids.begin() + r * length);
      std::fill_n(mask.begin() + r * length, one.size(), 1);
    }
    const TensorShape shape = TensorShape::of({count, length});
    Status s = session.set_input(generation.id_input(), ElementType::kI32, ids.data(), shape);
    if (s) s = session.set_attention_mask(ElementType::kI32, mask.data(), shape);
    if (s) s = session.run();
    if (!s) {
      return fail(
          {400, "invalid_input",
           "input[" + std::to_string(order[first]) + "] and its batch: " + s.message(), "input"},
          0);
    }
    Expected<TensorRef> out = session.output(kEmbeddingOutput);
    if (!out) return fail({500, "internal", out.status().message()}, 0);
    width = out->shape[out->shape.size() - 1];
    embeddings.resize(encoded.size() * width);
    for (size_t r = 0; r < count; ++r) {
      const float* row = out->f32() + r * width;
      if (auto bad = first_non_finite(row, width)) {
        return fail(
            {422, "non_finite_output",
             "input[" + std::to_string(order[first + r]) +
                 "]: the embedding has a non-finite value at index " + std::to_string(*bad)},
            0);
      }
      std::copy(row, row + width, embeddings.begin() + order[first + r] * width);
    }
  }
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (std::optional<ApiError> error = emit(i, embeddings.data() + i * width))
      return fail(*error, i);
  }
  return std::nullopt;
}

}  // namespace normrt::serve
