// ModelService::embed_each: the inputs of an embedding request run on one
// leased session, in batches of up to --run-batch sorted by length (longest
// first, as sentence-transformers orders them, so that a batch pads little;
// the runtime drops the padding before any work) or one at a time, stopping
// between runs when the request is too late (504) or its client has gone
// (499, no reply). The embeddings are emitted in the request's order. With
// --batch-wait-ms a small request's texts join other requests' in one batch
// instead (request_merger.h), and it gets back its own rows.
#include <algorithm>

#include "tools/serve/model_service.h"
#include "tools/serve/padded_batch.h"
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
  const bool none_empty = std::none_of(encoded.begin(), encoded.end(),
                                       [](const EncodedInput& input) { return input.ids.empty(); });
  RequestMerger* merger = generation.merger();
  if (merger != nullptr && none_empty && merger->takes(encoded.size())) {
    return embed_merged(generation, *merger, encoded, control, emit, fail);
  }
  ApiResult<SessionPool::Lease> lease = this->lease(generation, control);
  if (!lease) return fail(lease.error(), 0);
  Session& session = lease->session();
  const bool batches = generation.run_batch() > 1 && encoded.size() > 1 && none_empty;
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
  std::vector<size_t> lengths;
  for (const EncodedInput& input : encoded) lengths.push_back(input.ids.size());
  const std::vector<size_t> order = longest_first(lengths);
  std::vector<float> embeddings;  // [inputs, width], in the request's order
  size_t width = 0;
  std::vector<PaddedInput> inputs(1);
  inputs[0].name = generation.id_input();
  std::vector<int32_t> mask;
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
    inputs[0].rows.clear();
    for (size_t r = 0; r < count; ++r) inputs[0].rows.push_back(&encoded[order[first + r]].ids);
    const Status s = run_padded(session, inputs, mask);
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

std::optional<Reply> ModelService::embed_merged(
    const ModelGeneration& generation, RequestMerger& merger,
    const std::vector<EncodedInput>& encoded, const RequestControl& control,
    const EmitEmbedding& emit, const std::function<Reply(const ApiError&, size_t)>& fail) const {
  RequestMerger::Part part;
  part.inputs = &encoded;
  RequestMerger::Runner runner;
  runner.lease = [&](const RequestControl& batch_control) {
    return lease(generation, batch_control);
  };
  runner.run = [&](Session& session, const std::vector<RequestMerger::Part*>& parts) {
    size_t texts = 0;
    for (const RequestMerger::Part* one : parts) texts += one->inputs->size();
    run_parts(generation, session, parts);
    metrics_.record_merged_run(parts.size(), texts);
  };
  switch (merger.submit(part, control, runner)) {
    case RequestMerger::Outcome::kClientGone:
      metrics_.record_merge_left(ServeMetrics::MergeLeft::kClientGone);
      return client_gone_reply(0);
    case RequestMerger::Outcome::kExpired:
      metrics_.record_merge_left(ServeMetrics::MergeLeft::kDeadline);
      return fail(deadline_error(control, "0 of " + std::to_string(encoded.size()) +
                                              " inputs were embedded (waiting for a merged batch)"),
                  0);
    case RequestMerger::Outcome::kRan:
      break;
  }
  if (part.error) return fail(*part.error, 0);
  const size_t width = part.rows.size() / encoded.size();
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (std::optional<ApiError> error = emit(i, part.rows.data() + i * width))
      return fail(*error, i);
  }
  return std::nullopt;
}

void ModelService::run_parts(const ModelGeneration& generation, Session& session,
                             const std::vector<RequestMerger::Part*>& parts) const {
  struct Row {
    RequestMerger::Part* part;
    size_t index;  // in its request
  };
  std::vector<Row> rows;
  for (RequestMerger::Part* part : parts) {
    for (size_t i = 0; i < part->inputs->size(); ++i) rows.push_back({part, i});
  }
  auto ids_of = [](const Row& row) -> const std::vector<int32_t>& {
    return (*row.part->inputs)[row.index].ids;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const Row& a, const Row& b) { return ids_of(a).size() > ids_of(b).size(); });
  std::vector<PaddedInput> inputs(1);
  inputs[0].name = generation.id_input();
  for (const Row& row : rows) inputs[0].rows.push_back(&ids_of(row));
  std::vector<int32_t> mask;
  const Status s = run_padded(session, inputs, mask);
  if (!s) {
    if (parts.size() > 1) {
      for (RequestMerger::Part* part : parts) run_parts(generation, session, {part});
      return;
    }
    parts[0]->error = ApiError{
        400, "invalid_input",
        "input[" + std::to_string(rows[0].index) + "] and its batch: " + s.message(), "input"};
    return;
  }
  Expected<TensorRef> out = session.output(kEmbeddingOutput);
  if (!out) {
    for (RequestMerger::Part* part : parts)
      part->error = ApiError{500, "internal", out.status().message()};
    return;
  }
  const size_t width = out->shape[out->shape.size() - 1];
  for (RequestMerger::Part* part : parts) part->rows.resize(part->inputs->size() * width);
  for (size_t r = 0; r < rows.size(); ++r) {
    const float* row = out->f32() + r * width;
    RequestMerger::Part& part = *rows[r].part;
    if (auto bad = first_non_finite(row, width)) {
      // Only this request fails; the others in the batch keep their rows.
      if (!part.error) {
        part.error = ApiError{422, "non_finite_output",
                              "input[" + std::to_string(rows[r].index) +
                                  "]: the embedding has a non-finite value at index " +
                                  std::to_string(*bad)};
      }
      continue;
    }
    std::copy(row, row + width,
              part.rows.begin() + static_cast<std::ptrdiff_t>(rows[r].index * width));
  }
}

}  // namespace normrt::serve
