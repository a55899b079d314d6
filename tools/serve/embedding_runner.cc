// ModelService::embed_each: the inputs of an embedding request run one at a
// time at batch 1 on one leased session, stopping between inputs when the
// request is too late (504) or its client has gone (499, no reply).
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

}  // namespace normrt::serve
