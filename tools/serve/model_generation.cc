#include "tools/serve/model_generation.h"

#include <algorithm>
#include <chrono>

#include "base/status.h"
#include "runtime/exec/compiled_model.h"

namespace normrt::serve {
namespace {

constexpr const char* kEmbeddingOutput = "embedding";
// Bounds of the memory per JSON value and per f32 written as text: a DOM
// value is 16 bytes in its parent's vector (twice that while the vector
// grows) or ~80 in an object's map node; a float is ≤ 15 characters and a
// comma ("-1.17549435e-38,").
constexpr size_t kDomBytesPerValue = 96;
constexpr size_t kTextBytesPerFloat = 16;

size_t elements_at_max(const TensorInfo& info, size_t max_length) {
  size_t count = 1;
  for (int64_t dim : info.shape) count *= dim < 0 ? max_length : static_cast<size_t>(dim);
  return count;
}

}  // namespace

Expected<std::shared_ptr<ModelGeneration>> ModelGeneration::create(
    std::shared_ptr<const Model> model, size_t workers, size_t max_embedding_inputs,
    std::optional<TextTokenizer> tokenizer, uint64_t number, size_t run_batch,
    const MergeOptions& merge) {
  if (model == nullptr) return Status::error("serve: no model");
  std::shared_ptr<ModelGeneration> generation(new ModelGeneration());
  generation->model_ = model;
  generation->number_ = number;
  generation->created_ = std::chrono::system_clock::now();
  const size_t max_batch = model->batch_refusal().empty() ? std::max<size_t>(run_batch, 1) : 1;
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<SessionPool> pool,
                          SessionPool::create(model, workers, max_batch));
  generation->pool_ = std::move(pool);
  generation->tokenizer_ = std::move(tokenizer);
  if (generation->tokenizer_) {
    NORMRT_RETURN_IF_ERROR(is_reranker(*model) ? generation->check_rerank_model()
                                               : generation->check_embedding_model());
  }
  // A merged run is one batch of the sessions: at most max_batch texts.
  // Only embedding requests merge (a reranker's pairs run per request).
  if (merge.wait && max_batch > 1 && generation->embeds_texts()) {
    const size_t texts = merge.max_texts == 0 ? max_batch : std::min(merge.max_texts, max_batch);
    generation->merger_ = std::make_unique<RequestMerger>(*merge.wait, texts);
  }

  const size_t max_length = model->max_sequence_length();
  size_t input_elements = 0, output_elements = 0;
  for (const TensorInfo& info : model->inputs())
    input_elements += elements_at_max(info, max_length);
  for (const TensorInfo& info : model->outputs()) {
    output_elements += elements_at_max(info, max_length);
  }
  generation->max_input_elements_ = input_elements;
  generation->max_output_elements_ = output_elements;
  generation->max_run_values_ =
      input_elements + 16 * model->inputs().size() + 4 * model->outputs().size() + 64;
  generation->max_embedding_inputs_ = max_embedding_inputs;
  // Token-id arrays: one value per id and one per array.
  generation->max_embedding_values_ = max_embedding_inputs * (max_length + 1) + 64;
  return generation;
}

size_t ModelGeneration::request_bytes_beyond_body(size_t body_bytes) const {
  // Every JSON value but the last takes at least two bytes ("1," or "[]"),
  // so a body holds at most body_bytes / 2 + 2 of them; an input (a text
  // "", or ids [1], and a separator) at least three.
  const size_t body_values = body_bytes / 2 + 2;
  const size_t body_inputs = body_bytes / 3 + 1;
  const size_t max_length = model_->max_sequence_length();
  const size_t run_bytes = std::min(max_run_values_, body_values) * kDomBytesPerValue +
                           std::min(max_input_elements_, body_values) * sizeof(float) +
                           max_output_elements_ * kTextBytesPerFloat + 4096;
  size_t embedding_bytes = 0;
  if (tokenizer_) {
    const size_t inputs = std::min(max_embedding_inputs_, body_inputs);
    embedding_bytes = std::min(max_embedding_values_, body_values) * kDomBytesPerValue +
                      inputs * ((max_length + 1) * sizeof(int32_t) +
                                embedding_width_ * kTextBytesPerFloat + 256) +
                      4096;
  }
  // + body_bytes: the tensors a v2 request sends as binary data, copied out.
  return std::max(run_bytes, embedding_bytes) + body_bytes;
}

Status ModelGeneration::check_embedding_model() {
  const auto& inputs = model_->inputs();
  if (inputs.size() != 1 || inputs[0].dtype != "i32" ||
      inputs[0].shape != std::vector<int64_t>{-1}) {
    return Status::error(
        "--vocab: /v1/embeddings needs a model with one input, i32 token ids "
        "of shape [S]; this model has " +
        std::to_string(inputs.size()) + " input(s), the first " +
        (inputs.empty() ? "absent" : inputs[0].name + " " + inputs[0].dtype));
  }
  id_input_ = inputs[0].name;
  bool has_embedding = false;
  for (const TensorInfo& output : model_->outputs()) {
    has_embedding = has_embedding || (output.name == kEmbeddingOutput && output.dtype == "f32" &&
                                      output.shape.size() == 2 && output.shape[0] == 1);
  }
  if (!has_embedding) {
    return Status::error(
        "--vocab: /v1/embeddings needs an f32 output 'embedding' of shape "
        "[1, H] (convert with normrt-convert --pooling mean)");
  }
  for (const TensorInfo& output : model_->outputs()) {
    if (output.name == kEmbeddingOutput) embedding_width_ = static_cast<size_t>(output.shape[1]);
  }
  const Graph& graph = model_->impl().graph;
  for (const Node& node : graph.nodes) {
    for (TensorId out : node.outputs) {
      if (out != kNoTensor && graph.tensors[out].name == kEmbeddingOutput) {
        embedding_normalized_ = node.op == OpType::kL2Normalize;
      }
    }
  }
  NORMRT_ASSIGN_OR_RETURN(EncodedInput probe,
                          tokenizer_->encode("", model_->max_sequence_length()));
  return probe_vocabulary(std::move(probe.ids));
}

bool is_reranker(const Model& model) {
  bool ids = false, logits = false, others = false;
  for (const TensorInfo& input : model.inputs()) {
    const bool sequence = input.dtype == "i32" && input.shape == std::vector<int64_t>{-1};
    ids |= input.name == "input_ids" && sequence;
    others |= !(sequence && (input.name == "input_ids" || input.name == "token_type_ids"));
  }
  for (const TensorInfo& output : model.outputs()) {
    logits |= output.name == "logits" && output.dtype == "f32" &&
              output.shape == std::vector<int64_t>{1, 1};
  }
  return ids && logits && !others;
}

Status ModelGeneration::check_rerank_model() {
  reranks_ = true;
  id_input_ = "input_ids";
  for (const TensorInfo& input : model_->inputs()) rerank_types_ |= input.name == "token_type_ids";
  NORMRT_ASSIGN_OR_RETURN(EncodedPair probe,
                          tokenizer_->encode_pair("", "", model_->max_sequence_length()));
  return probe_vocabulary(std::move(probe.ids));
}

Status ModelGeneration::probe_vocabulary(std::vector<int32_t> ids) {
  // The largest id of the vocabulary must be a row of the model's table: the
  // empty text's ids (BERT: [CLS] [SEP]) with it after the first.
  const size_t vocab_size = tokenizer_->vocab_size();
  vocabulary_size_ = static_cast<int64_t>(vocab_size);
  ids.insert(ids.begin() + std::min<size_t>(1, ids.size()), static_cast<int32_t>(vocab_size - 1));
  const std::vector<int32_t> types(ids.size(), 0);
  SessionPool::Lease lease = pool_->acquire(std::chrono::milliseconds(0), 0);
  Status s = lease.session().set_input(id_input_, ids.data(), ids.size() * sizeof(int32_t));
  if (s && rerank_types_)
    s = lease.session().set_input("token_type_ids", types.data(), types.size() * sizeof(int32_t));
  if (s) s = lease.session().run();
  if (!s) {
    return Status::error(std::string(tokenizer_->source()) + ": the vocabulary (" +
                         std::to_string(vocab_size) +
                         " tokens) does not fit the model: " + s.message());
  }
  return Status::ok();
}

}  // namespace normrt::serve
